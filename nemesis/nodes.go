package nemesis

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// The seam's acts on a node's process, which the fault kinds of several
// rooms share: the process faults (nemesis/process) are made of them, and
// so are the power loss (nemesis/disk, which kills and starts a node) and
// the seam's own removal of a controller (a clean stop). Each act that
// brings a node back also undoes on it what a heal could not reach while
// it was down or frozen (HealKind.Retry), so no room has to remember to.
const (
	// stopGrace is how long a clean stop lets the node shut down after
	// SIGTERM before the backend kills it.
	stopGrace = 60 * time.Second
	// killWait bounds the wait for a killed container to exit: a fault
	// that reports "killed" must not leave a process still writing.
	killWait = 20 * time.Second
)

// Kill sends SIGKILL and waits until the container has exited: the kill
// fault's act (nemesis/process), and the power loss's (nemesis/disk).
func (e *Env) Kill(ctx context.Context, id int32) error {
	if err := e.Cluster.Kill(ctx, id); err != nil {
		return err
	}
	return e.waitStopped(ctx, id, killWait)
}

func (e *Env) waitStopped(ctx context.Context, id int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		st, err := e.Cluster.State(ctx, id)
		if err == nil && !st.Running {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("node %d still runs %s after SIGKILL", id, limit)
		}
	}
}

// Stop stops node id cleanly: SIGTERM, and SIGKILL after stopGrace. The
// restart fault's first half (nemesis/process), as the removal of a
// controller stops one (removecontroller.go).
func (e *Env) Stop(ctx context.Context, id int32) error {
	return e.Cluster.Stop(ctx, id, stopGrace)
}

// Start starts a stopped node and removes rules a heal could not reach:
// the start fault's act (nemesis/process), and lose-unflushed's with
// start: true (nemesis/disk).
func (e *Env) Start(ctx context.Context, id int32) error {
	if err := e.Cluster.Start(ctx, id); err != nil {
		return err
	}
	return e.RetryHeals(ctx, id)
}

// Resume thaws a paused node and removes rules a heal could not reach:
// the resume fault's act (nemesis/process).
func (e *Env) Resume(ctx context.Context, id int32) error {
	if err := e.Cluster.Resume(ctx, id); err != nil {
		return err
	}
	return e.RetryHeals(ctx, id)
}

// WaitLive waits, at most limit, until the brokers ids are registered and
// unfenced: a clean restart is over then (nemesis/process), as a heal all
// and an upgrade are (waitHealthy, waitInService).
func (e *Env) WaitLive(ctx context.Context, ids []int32, limit time.Duration) error {
	return waitLive(ctx, e.State(), ids, limit)
}

// waitLive waits until the brokers ids are registered and unfenced.
func waitLive(ctx context.Context, src StateSource, ids []int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last []int32
	for {
		live, err := src.LiveBrokers(ctx)
		if err == nil {
			last = live
			ok := true
			for _, id := range ids {
				ok = ok && slices.Contains(live, id)
			}
			if ok {
				return nil
			}
		}
		if err := sleep(ctx, PollInterval); err != nil {
			return fmt.Errorf("brokers %v not live within %s (live: %v)", ids, limit, last)
		}
	}
}
