package logorder

import (
	"syscall"
	"time"
)

// cpuTime is the CPU this test process has used (user and system). The
// scale tests bound it rather than the wall clock: make test runs
// packages side by side on 2 cores, and a quadratic shape costs its CPU
// however busy the machine is, while the wall clock would measure the
// neighbours (speed targets proper live in the benchmarks).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
