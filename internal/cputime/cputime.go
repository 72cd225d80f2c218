//go:build unix

// Package cputime reads CPU time: this process's (getrusage) and another
// live process's (/proc/<pid>/stat). The benchmarks weigh a client's cost
// by it: workloads' BenchmarkProduce, and the java driver's JVMs
// (workloads/java), which run the Java client outside this process.
package cputime

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Self is the user+system CPU time this process has used.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Proc is the user+system CPU time of the live process pid, read from
// /proc (getrusage's RUSAGE_CHILDREN counts a child only once it has been
// waited for); false where /proc or the process is missing.
func Proc(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return procStatCPU(string(b))
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
