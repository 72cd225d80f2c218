package workloads

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Client faults on group members (nemesis/clients/groupfault.go injects
// them; the member loops carry them out: workloads/groups/faults.go):
// kill a member (its client is cut off and closed without leaving, as a
// crashed process; the coordinator notices when its session times out),
// start a new one in its place (a new process under the same member
// name), make one leave the group (a clean LeaveGroup) and rejoin it, and
// stall one: its member loop stops between a poll and what follows, with
// its op lock held, so that it neither polls nor answers a rebalance (its
// revoke callback waits): past the rebalance timeout (max.poll.interval)
// the coordinator drops it from the group, and its next commit is
// refused.

// GroupControl is the workload's handle on its group members. Each call
// returns once the member took the fault in (a stall: once it began).
type GroupControl interface {
	// Members lists the member names.
	Members() []string
	// Kill kills the member's client; Start starts a new process and
	// client for a member that has none (killed or left).
	Kill(ctx context.Context, member string) error
	Start(ctx context.Context, member string) error
	// Leave makes the member leave the group (Start rejoins it).
	Leave(ctx context.Context, member string) error
	// Stall stops the member for d.
	Stall(ctx context.Context, member string, d time.Duration) error
}

// MemberOp is a client fault on a member, as its member loop receives it.
type MemberOp int

// The member faults (GroupControl's calls).
const (
	MemberKill MemberOp = iota
	MemberStart
	MemberLeave
	MemberStall
)

func (o MemberOp) String() string {
	return [...]string{"kill", "start", "leave", "stall"}[o]
}

// MemberFault is one fault for a member loop to carry out: Op, D for a
// stall, and Done, on which the loop answers once it took the fault in.
// Exported for the workload kinds with members (workloads/groups,
// workloads/shares), whose member loops carry the faults out.
type MemberFault struct {
	Op   MemberOp
	D    time.Duration
	Done chan error
}

// MemberControl is the GroupControl over member loops: the i-th is
// named names[i] and takes its faults from chs[i]. A kind with members
// hands the seam one (MemberKind.Members).
func MemberControl(names []string, chs []chan MemberFault) GroupControl {
	return memberControl{names: names, chs: chs}
}

// memberControl implements GroupControl over member loops' channels.
type memberControl struct {
	names []string
	chs   []chan MemberFault
}

// Group returns the handle on the group members, nil without a group:
// its kind's (MemberKind.Members: the consumer group's, workloads/groups,
// or the share group's, workloads/shares, which take the same faults). A
// run has one kind of group (Config.Validate).
func (w *Workload) Group() GroupControl {
	for _, k := range kindsOf[MemberKind](w) {
		if m := k.Members(); m != nil {
			return m
		}
	}
	return nil
}

func (g memberControl) Members() []string { return slices.Clone(g.names) }

func (g memberControl) send(ctx context.Context, member string, op MemberOp, d time.Duration) error {
	i := slices.Index(g.names, member)
	if i < 0 {
		return fmt.Errorf("no group member %q (members %v)", member, g.names)
	}
	c := MemberFault{Op: op, D: d, Done: make(chan error, 1)}
	select {
	case g.chs[i] <- c:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-c.Done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g memberControl) Kill(ctx context.Context, m string) error {
	return g.send(ctx, m, MemberKill, 0)
}
func (g memberControl) Start(ctx context.Context, m string) error {
	return g.send(ctx, m, MemberStart, 0)
}
func (g memberControl) Leave(ctx context.Context, m string) error {
	return g.send(ctx, m, MemberLeave, 0)
}
func (g memberControl) Stall(ctx context.Context, m string, d time.Duration) error {
	return g.send(ctx, m, MemberStall, d)
}
