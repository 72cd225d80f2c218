//go:build unix

package workloads

import (
	"time"

	"github.com/kchaos/kchaos/internal/cputime"
)

// clientCPU is the CPU driver drv's client side has used: this process's,
// plus that of the processes the driver runs its client in (driver java's
// JVMs: its JVMCPU, found in the registry). Where /proc is missing the
// JVMs count 0, and a Java figure is this process's alone.
func clientCPU(drv string) time.Duration {
	cpu := cputime.Self()
	if d, ok := DriverFor(drv); ok {
		if j, ok := d.(interface{ JVMCPU() time.Duration }); ok {
			cpu += j.JVMCPU()
		}
	}
	return cpu
}
