package checker

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// Rebalances a member learned (docs/HISTORY.md, "Consumer groups"): how
// they are decoded and checked, and what they move while the history
// streams: the partitions the member holds, the positions it will resume
// from, its poll order.

func (c *checker) invokeRebalance(pd *pending, e *histories.Event) error {
	const what = "rebalance invoke value"
	v, err := c.decodeRebal(what, e.Value)
	if err != nil {
		return err
	}
	m, err := c.memberOf(what, int32(e.Process), *v.Group)
	if err != nil {
		return err
	}
	pd.gp = &groupPend{group: m.Group, rebal: v}
	return nil
}

func (c *checker) decodeRebal(what string, raw []byte) (*rebalVal, error) {
	var v rebalVal
	if err := decodeRequired(what, raw, &v); err != nil {
		return nil, err
	}
	if err := need(what, field{v.Group != nil, "group"}, field{v.Topic != nil, "topic"}); err != nil {
		return nil, err
	}
	if err := c.checkTopic(what, *v.Topic); err != nil {
		return nil, err
	}
	for _, l := range []struct {
		name string
		ps   *[]int32
	}{{"assigned", v.Assigned}, {"revoked", v.Revoked}, {"lost", v.Lost}} {
		if l.ps == nil {
			continue
		}
		for _, p := range *l.ps {
			if p < 0 {
				return nil, fmt.Errorf("%s: field %q: partition %d is negative", what, l.name, p)
			}
			if err := c.checkPlace(fmt.Sprintf("%s: field %q", what, l.name), []byte(*v.Topic), p); err != nil {
				return nil, err
			}
		}
	}
	return &v, nil
}

func (c *checker) completeRebalance(pd *pending, e *histories.Event) error {
	if e.Type != histories.OK {
		return nil // a rebalance is learned: only an ok one says anything
	}
	const what = "rebalance ok value"
	v, err := c.decodeRebal(what, e.Value)
	if err != nil {
		return err
	}
	a, _ := json.Marshal(v)
	b, _ := json.Marshal(pd.gp.rebal)
	if string(a) != string(b) {
		return fmt.Errorf("%s: differs from its invoke (%s, invoked %s)", what, a, b)
	}
	p := int32(e.Process)
	tps := func(ps *[]int32) []int32 {
		if ps == nil {
			return nil
		}
		out := make([]int32, len(*ps))
		for i, part := range *ps {
			out[i] = c.tp([]byte(*v.Topic), part)
		}
		return out
	}
	r := rebalOp{Group: pd.gp.group, Proc: p, Index: e.Index, At: e.Time,
		Assigned: tps(v.Assigned), Revoked: tps(v.Revoked), Lost: tps(v.Lost)}
	if v.Generation != nil {
		r.Gen, r.HasGen = *v.Generation, true
		c.lastGen[p] = *v.Generation
	}
	if v.MemberID != nil {
		r.MID = *v.MemberID
	}
	ri := int32(len(c.Rebals))
	c.Rebals = append(c.Rebals, r)
	for _, tp := range slices.Concat(r.Revoked, r.Lost) {
		delete(c.resume, procTP{p, tp})
	}
	c.holds.Rebalance(int(p), r.Assigned, r.Revoked, r.Lost)
	c.forgetDelivered(p, slices.Concat(r.Revoked, r.Lost))
	c.resetOrder(p, slices.Concat(r.Assigned, r.Revoked, r.Lost))
	for _, tp := range r.Assigned {
		at, ok := c.committed[groupTP{r.Group, tp}]
		if !ok {
			at = committedAt{Off: -1, Commit: -1}
		}
		c.resume[procTP{p, tp}] = resumeAt{at: at, rebal: ri}
	}
	return nil
}
