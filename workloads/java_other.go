//go:build !unix

package workloads

import (
	"errors"
	"os/exec"
)

// lockFile: the java driver's build lock is for unix hosts only.
func lockFile(string) (func(), error) {
	return nil, errors.New("driver java builds on unix hosts only")
}

// detach: nothing to do where there are no process groups.
func detach(*exec.Cmd) {}
