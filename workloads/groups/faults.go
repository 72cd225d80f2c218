package groups

import (
	"context"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/workloads"
)

// The member faults (workloads.GroupControl, workloads/group_faults.go)
// as a member loop carries them out.

// control carries out the faults waiting for the member; with no client
// (killed or left) it waits for one, or for stop.
func (s *memberSlot) control(stop context.Context) error {
	for {
		var c workloads.MemberFault
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
		c.Done <- s.apply(stop, c)
	}
}

// apply carries out one fault. A client is killed or left without s.mu
// held: its callbacks take it.
func (s *memberSlot) apply(stop context.Context, c workloads.MemberFault) error {
	switch c.Op {
	case workloads.MemberKill, workloads.MemberLeave:
		s.mu.Lock()
		cl := s.cl
		if cl == nil {
			s.mu.Unlock()
			return fmt.Errorf("member %s has no client to %s", s.name, c.Op)
		}
		if c.Op == workloads.MemberKill {
			s.dead = true // a crashed process records nothing more
		}
		s.mu.Unlock()
		if c.Op == workloads.MemberKill {
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
	case workloads.MemberStart:
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cl != nil {
			return fmt.Errorf("member %s is running", s.name)
		}
		return s.start()
	case workloads.MemberStall:
		if s.cl == nil {
			return fmt.Errorf("member %s has no client to stall", s.name)
		}
		s.mu.Lock()
		go func() {
			defer s.mu.Unlock()
			select {
			case <-time.After(c.D):
			case <-stop.Done():
			}
		}()
		return nil
	}
	return fmt.Errorf("unknown member fault %v", c.Op)
}
