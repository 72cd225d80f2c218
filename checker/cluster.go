package checker

import (
	"fmt"
	"github.com/kchaos/kchaos/checker/model"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

func (c *checker) addObserve(e *histories.Event) error {
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
	if v.LogStartOffset != nil {
		// The log end is known only with the leader's own (a follower's
		// or the watermark can lag it): else -1, which rules nothing out.
		end := int64(-1)
		if leo, ok := v.LogEndOffsets[histories.PartitionKey(v.Leader)]; ok {
			end = leo
			for _, o := range v.LogEndOffsets {
				end = max(end, o)
			}
		}
		if n := len(t.LogStarts); n == 0 || t.LogStarts[n-1].Offset != *v.LogStartOffset {
			t.LogStarts = append(t.LogStarts, model.LogStart{At: e.Time, Offset: *v.LogStartOffset, End: end})
		}
	}
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

func (c *checker) addNemesis(e *histories.Event) error {
	if e.F == histories.FRequest {
		return c.addRequest(e)
	}
	if histories.IsBookkeeping(e.F) {
		// The runner's records of the schedule (mode, seed, plan) and of
		// its untils: no fault, so never "the fault that preceded a loss".
		return nil
	}
	var v histories.NemesisValue
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("nemesis value: %w", err)
	}
	if e.Type == histories.Invoke {
		c.nemAt[e.F] = len(c.Nem)
		c.Nem = append(c.Nem, model.NemOp{F: e.F, Call: e.Time, Ret: -1, V: v})
		return nil
	}
	i, ok := c.nemAt[e.F]
	if !ok {
		c.Nem = append(c.Nem, model.NemOp{F: e.F, Typ: e.Type, Call: e.Time, Ret: e.Time, V: v})
		return nil
	}
	delete(c.nemAt, e.F)
	op := &c.Nem[i]
	op.Typ, op.Ret = e.Type, e.Time
	if op.V.Fault == "" {
		op.V.Fault = v.Fault
	}
	if len(op.V.Nodes) == 0 {
		op.V.Nodes = v.Nodes
	}
	for k, d := range v.Details {
		if op.V.Details == nil {
			op.V.Details = map[string]any{}
		}
		op.V.Details[k] = d
	}
	return nil
}

// addRequest keeps a request fault's action (bookkeeping: it opens no
// fault window) so that explanations can name it.
func (c *checker) addRequest(e *histories.Event) error {
	var v histories.NemesisValue
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("request value: %w", err)
	}
	a, err := histories.RequestOf(v)
	if err != nil {
		return err
	}
	c.Requests = append(c.Requests, model.RequestOp{At: e.Time, Fault: v.Fault, A: a})
	return nil
}
