//go:build unix

package workloads

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clientCPU is the CPU the client side has used: this process's, plus
// that of the java driver's JVMs, which run the Java client outside it
// (getrusage's RUSAGE_CHILDREN counts a child only once it has been
// waited for, so the live JVMs are read from /proc). Where /proc is
// missing the JVMs count 0, and a Java figure is this process's alone.
func clientCPU() time.Duration { return cpuTime() + jvmCPU() }

// jvmCPU is the user+system CPU time of the JVMs in javaRegistry.
func jvmCPU() time.Duration {
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
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		d, _ := procStatCPU(string(b))
		sum += d
	}
	return sum
}

// userHZ is the unit of /proc/<pid>/stat's times: USER_HZ, 100 on every
// Linux kchaos runs on (sysconf(_SC_CLK_TCK) needs cgo to ask).
const userHZ = 100

// procStatCPU reads utime+stime (fields 14 and 15) of a /proc/<pid>/stat
// line. The command name (field 2) is in parentheses and may hold spaces
// and parentheses itself, so fields are counted after its last ')'.
func procStatCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * time.Second / userHZ, true
}

func TestProcStatCPU(t *testing.T) {
	for _, c := range []struct {
		name, stat string
		want       time.Duration
		ok         bool
	}{
		{"java", "4242 (java) S 1 4242 4242 0 -1 4194560 12 0 0 0 250 31 0 0 20 0 40 0 100 0 0", 2810 * time.Millisecond, true},
		{"name with spaces and parens", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 5 5 0 0", 100 * time.Millisecond, true},
		{"short", "7 (x) R 1 2", 0, false},
		{"no name", "garbage", 0, false},
		{"not a number", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 u 5", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := procStatCPU(c.stat)
			if got != c.want || ok != c.ok {
				t.Errorf("procStatCPU = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestJVMCPUReadsOwnProc checks the /proc reading on a live process (this
// one) where /proc exists: a running test has used some CPU.
func TestJVMCPUReadsOwnProc(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc here")
	}
	if _, ok := procStatCPU(string(b)); !ok {
		t.Errorf("cannot read /proc/self/stat: %q", b)
	}
}
