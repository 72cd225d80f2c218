//go:build !unix

package java

import (
	"errors"
	"os/exec"
	"time"
)

// lockFile: the java driver's build lock is for unix hosts only.
func lockFile(string) (func(), error) {
	return nil, errors.New("driver java builds on unix hosts only")
}

// detach: nothing to do where there are no process groups.
func detach(*exec.Cmd) {}

// JVMCPU: no /proc to read the JVMs' CPU from.
func (javaDriver) JVMCPU() time.Duration { return 0 }
