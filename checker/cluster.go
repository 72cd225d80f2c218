package checker

import (
	"fmt"
	"github.com/kchaos/kchaos/checker/model"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

func (c *Checker) addObserve(e *histories.Event) error {
	if len(e.Value) == 0 || e.Type == histories.Invoke || e.Type == histories.Fail {
		return nil
	}
	var v histories.ObserveValue
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("observe value: %w", err)
	}
	if v.Topic == "" {
		return nil
	}
	t := c.TPs[c.tp([]byte(v.Topic), v.Partition)]
	o := model.Sample{At: e.Time, Leader: v.Leader, Epoch: v.LeaderEpoch, ISR: v.ISR, ELR: v.ELR,
		LastELR: v.LastKnownELR, HW: v.HighWatermark}
	if n := len(t.Obs); n > 0 {
		prev := &t.Obs[n-1]
		if prev.Leader == o.Leader && prev.Epoch == o.Epoch && slices.Equal(prev.ISR, o.ISR) &&
			slices.Equal(prev.ELR, o.ELR) && slices.Equal(prev.LastELR, o.LastELR) {
			return nil
		}
		if o.Epoch > prev.Epoch && o.Leader >= 0 {
			switch {
			case slices.Contains(prev.ISR, o.Leader):
				o.Election = "clean"
			case slices.Contains(prev.ELR, o.Leader):
				o.Election = "elr"
			case slices.Contains(prev.LastELR, o.Leader):
				o.Election = "last-known-elr"
			default:
				o.Election = "unclean"
			}
		}
	}
	t.Obs = append(t.Obs, o)
	return nil
}

// nemOp is one nemesis op: its invoke and completion.
type nemOp struct {
	f         string
	typ       histories.Type // of the completion; "" while open
	call, ret int64
	v         histories.NemesisValue
}

// healing names the nemesis ops that undo a fault rather than make one.
func healing(f string) bool { return histories.KindOf(f) == histories.Undo }

// scheduleF is the nemesis op that records the schedule itself.
const scheduleF = histories.FSchedule

func (c *Checker) addNemesis(e *histories.Event) error {
	if e.F == scheduleF {
		// The runner's record of the schedule (mode, seed, plan): not a
		// fault, so never "the fault that preceded a loss".
		return nil
	}
	var v histories.NemesisValue
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("nemesis value: %w", err)
	}
	if e.Type == histories.Invoke {
		c.nemAt[e.F] = len(c.nem)
		c.nem = append(c.nem, nemOp{f: e.F, call: e.Time, ret: -1, v: v})
		return nil
	}
	i, ok := c.nemAt[e.F]
	if !ok {
		c.nem = append(c.nem, nemOp{f: e.F, typ: e.Type, call: e.Time, ret: e.Time, v: v})
		return nil
	}
	delete(c.nemAt, e.F)
	op := &c.nem[i]
	op.typ, op.ret = e.Type, e.Time
	if op.v.Fault == "" {
		op.v.Fault = v.Fault
	}
	if len(op.v.Nodes) == 0 {
		op.v.Nodes = v.Nodes
	}
	for k, d := range v.Details {
		if op.v.Details == nil {
			op.v.Details = map[string]any{}
		}
		op.v.Details[k] = d
	}
	return nil
}
