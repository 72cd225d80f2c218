//go:build unix

package cputime

import (
	"os"
	"testing"
	"time"
)

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
	if _, ok := Proc(os.Getpid()); !ok {
		t.Errorf("Proc(%d): cannot read /proc/self/stat", os.Getpid())
	}
}
