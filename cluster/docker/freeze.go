package docker

import (
	"context"
	"strings"
	"time"
)

// freezeTries and freezeBackoff bound pause's retries of a freeze the
// kernel did not finish.
const (
	freezeTries   = 3
	freezeBackoff = 500 * time.Millisecond
)

// retryFreeze runs pause until it succeeds, fails for another reason, or
// has failed freezeTries times with runc's "unable to freeze". The cgroup
// freezer waits for every task of the container to stop, and a task in
// uninterruptible sleep (a JVM in the middle of an fsync or a page fault,
// under load on a 2-core machine) can outlast runc's own retries (a
// thousand writes of FROZEN, Debian's runc 1.1). Another attempt is safe
// whatever runc left behind: Docker did not mark the container paused, a
// thawed cgroup is frozen again, and one left FREEZING is asked for
// FROZEN once more, which is the state the fault wants. Seen on a real run
// (2026-12-06, a guided exploration: a pause of a follower refused with
// "OCI runtime pause failed: unable to freeze", which ended the run's
// schedule). Any other error is returned at once.
func retryFreeze(ctx context.Context, pause func() error) error {
	var err error
	for i := range freezeTries {
		if err = pause(); err == nil || !strings.Contains(err.Error(), "unable to freeze") {
			return err
		}
		if i == freezeTries-1 {
			break
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(freezeBackoff):
		}
	}
	return err
}
