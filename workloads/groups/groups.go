// Package groups is the consumer group (workload.group), a workload kind
// of its own: each member is a client process that subscribes, polls,
// commits and learns of rebalances, recorded in the vocabulary of
// histories/groups.go, and takes the member faults (faults.go).
//
// A member's ops are serialized by its slot's lock: the member loop holds
// it for each poll and commit, and the client's callbacks (a rebalance, an
// auto-commit) take it to record theirs, so that one process never has two
// ops open. A callback therefore waits for a poll in flight, so a member
// polls for at most groupPollWait: kgo runs the KIP-848 reconciliation
// (and the offset fetch of newly assigned partitions) only after the
// assign callback returns, and a callback held for a whole second per
// step left partitions unfetched while the group kept moving them.
// Neither driver's poll waits for a callback.
//
// The Workload runs it beside the producers (a workloads.MemberKind,
// registered at init). Its settings (workloads.GroupConfig), what a
// driver gives it (workloads.GroupDriver, GroupMember, GroupHandler) and
// how a commit is judged (workloads.CommitOutcome, which the drivers'
// tests check their clients' errors against) are the seam's, since a
// driver package implements or names them and imports no kind; so is the
// group coordinator's read-back after the final read
// (Workload.GroupFinal), which reads the coordinator, not the members.
package groups

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kchaos/kchaos/workloads"
)

// The seam makes the consumer group of a workload that asks for one
// (workloads.New) through the registry: this package is linked by
// workloads/kinds.
func init() {
	workloads.RegisterKind(workloads.KindGroup, func(cfg workloads.Config, drv workloads.Driver) (workloads.Kind, error) {
		return newConsumerGroup(cfg, drv)
	})
}

// group is a workload's consumer group: a slot per member name. It is a
// workloads.MemberKind.
type group struct {
	cfg   workloads.Config
	env   workloads.KindEnv // lent by the Workload at Open
	slots []*memberSlot
}

var _ workloads.MemberKind = (*group)(nil)

// newConsumerGroup is the consumer group of cfg (its Defaults applied) over drv, with
// a slot per member (their clients start in Run); a driver without group
// members is refused.
func newConsumerGroup(cfg workloads.Config, drv workloads.Driver) (*group, error) {
	gd, ok := drv.(workloads.GroupDriver)
	if !ok {
		return nil, fmt.Errorf("driver %s has no group consumer", drv.Name())
	}
	g := &group{cfg: cfg, slots: make([]*memberSlot, cfg.Group.Members)}
	for i := range g.slots {
		g.slots[i] = &memberSlot{g: g, i: i, name: workloads.MemberName(i), drv: gd, ctl: make(chan workloads.MemberFault, 4)}
	}
	return g, nil
}

// Open takes what the Workload lends the members; nothing to ready.
func (g *group) Open(_ context.Context, env workloads.KindEnv) error {
	g.env = env
	return nil
}

// Run runs every member until stop, and returns every member's error,
// each named.
func (g *group) Run(stop context.Context) error {
	errs := make([]error, len(g.slots))
	var wg sync.WaitGroup
	for i, s := range g.slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.run(stop); err != nil {
				errs[i] = fmt.Errorf("group member %s: %w", s.name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Drain has nothing to do: the coordinator's state is read back after
// the final read (Workload.GroupFinal).
func (g *group) Drain(context.Context, workloads.KindEnv) error { return nil }

// Members is the handle on the members for the member faults.
func (g *group) Members() workloads.GroupControl {
	names := make([]string, len(g.slots))
	chs := make([]chan workloads.MemberFault, len(g.slots))
	for i, s := range g.slots {
		names[i], chs[i] = s.name, s.ctl
	}
	return workloads.MemberControl(names, chs)
}
