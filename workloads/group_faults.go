package workloads

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Client faults on group members (nemesis/groupfault.go injects them):
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

type ctlOp int

const (
	ctlKill ctlOp = iota
	ctlStart
	ctlLeave
	ctlStall
)

func (o ctlOp) String() string {
	return [...]string{"kill", "start", "leave", "stall"}[o]
}

// memberCtl is one fault for a member loop to carry out.
type memberCtl struct {
	op   ctlOp
	d    time.Duration
	done chan error
}

// groupControl implements GroupControl over the workload's slots.
type groupControl struct{ w *Workload }

// Group returns the handle on the group members, nil without a group.
// Share-group members (workload.shares) take the same faults.
func (w *Workload) Group() GroupControl {
	if !w.cfg.Group.Enabled() && !w.cfg.Shares.Enabled() {
		return nil
	}
	return groupControl{w}
}

// ctls is each member's name and fault channel.
func (g groupControl) ctls() ([]string, []chan memberCtl) {
	var names []string
	var chs []chan memberCtl
	for _, s := range g.w.slots {
		names, chs = append(names, s.name), append(chs, s.ctl)
	}
	for _, s := range g.w.shareSlots {
		names, chs = append(names, s.name), append(chs, s.ctl)
	}
	return names, chs
}

func (g groupControl) Members() []string {
	names, _ := g.ctls()
	return names
}

func (g groupControl) send(ctx context.Context, member string, op ctlOp, d time.Duration) error {
	names, chs := g.ctls()
	i := slices.Index(names, member)
	if i < 0 {
		return fmt.Errorf("no group member %q (members %v)", member, g.Members())
	}
	c := memberCtl{op: op, d: d, done: make(chan error, 1)}
	select {
	case chs[i] <- c:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g groupControl) Kill(ctx context.Context, m string) error  { return g.send(ctx, m, ctlKill, 0) }
func (g groupControl) Start(ctx context.Context, m string) error { return g.send(ctx, m, ctlStart, 0) }
func (g groupControl) Leave(ctx context.Context, m string) error { return g.send(ctx, m, ctlLeave, 0) }
func (g groupControl) Stall(ctx context.Context, m string, d time.Duration) error {
	return g.send(ctx, m, ctlStall, d)
}

// control carries out the faults waiting for the member; with no client
// (killed or left) it waits for one, or for stop.
func (s *memberSlot) control(stop context.Context) error {
	for {
		var c memberCtl
		if s.cl == nil {
			select {
			case c = <-s.ctl:
			case <-stop.Done():
				return nil
			}
		} else {
			select {
			case c = <-s.ctl:
			default:
				return nil
			}
		}
		c.done <- s.apply(stop, c)
	}
}

// apply carries out one fault. A client is killed or left without s.mu
// held: its callbacks take it.
func (s *memberSlot) apply(stop context.Context, c memberCtl) error {
	switch c.op {
	case ctlKill, ctlLeave:
		s.mu.Lock()
		cl := s.cl
		if cl == nil {
			s.mu.Unlock()
			return fmt.Errorf("member %s has no client to %s", s.name, c.op)
		}
		if c.op == ctlKill {
			s.dead = true // a crashed process records nothing more
		}
		s.mu.Unlock()
		if c.op == ctlKill {
			cl.Kill()
		} else {
			ctx, cancel := context.WithTimeout(stop, 10*time.Second)
			cl.Leave(ctx)
			cancel()
		}
		s.mu.Lock()
		s.dead, s.cl = true, nil
		s.mu.Unlock()
		return nil
	case ctlStart:
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cl != nil {
			return fmt.Errorf("member %s is running", s.name)
		}
		return s.start()
	case ctlStall:
		if s.cl == nil {
			return fmt.Errorf("member %s has no client to stall", s.name)
		}
		s.mu.Lock()
		go func() {
			defer s.mu.Unlock()
			select {
			case <-time.After(c.d):
			case <-stop.Done():
			}
		}()
		return nil
	}
	return fmt.Errorf("unknown member fault %v", c.op)
}
