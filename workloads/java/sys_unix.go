//go:build unix

package java

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/kchaos/kchaos/internal/cputime"
)

// lockFile takes an exclusive lock on path (made if need be), waiting for
// another process's; unlock releases it. The kernel releases it too if
// the process dies, so a crashed build never leaves the lock held.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// detach puts the JVM in a process group of its own: a Ctrl-C at the
// terminal interrupts kchaos, which then ends the run in order (sends in
// flight complete), rather than killing the client under it. The JVM
// still ends with kchaos: it exits when its stdin closes.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// JVMCPU is the user+system CPU time of the driver's live JVMs on this
// host, read from /proc (0 for a JVM it cannot read): a benchmark that
// weighs a driver's cost adds it to this process's, since the Java client
// runs outside it (the seam's BenchmarkProduce asks the registered driver
// for it; BenchmarkJavaPipe).
func (javaDriver) JVMCPU() time.Duration {
	r := &javaRegistry
	r.Lock()
	var pids []int
	for _, j := range r.m {
		if j.cmd != nil && j.cmd.Process != nil {
			pids = append(pids, j.cmd.Process.Pid)
		}
	}
	r.Unlock()
	var sum time.Duration
	for _, pid := range pids {
		d, _ := cputime.Proc(pid)
		sum += d
	}
	return sum
}
