package groupcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

// delivery-outside-assignment: a member's poll delivered records of a
// partition that its client did not hold when it polled
// (histories.Holdings). Package checker finds the runs while the history
// streams (model.Groups.Outside); this turns them into entries.

// outsideAssignment turns the runs into entries, each with what the
// history holds around it: the partitions the client held, the rebalance
// that took this one from it (if one did), who held it, and the faults made
// since the client's last rebalance (or its subscribe).
func (a *run) outsideAssignment() {
	c := a.c
	for _, run := range c.Outside {
		gp := c.GPolls[run.GPoll]
		op := c.Polls[gp.Poll]
		t := c.TPs[run.TP]
		e := OutsideAssignmentEntry{Group: c.GroupNames.List[gp.Group], Topic: t.Topic, Partition: t.Partition,
			Process: int(gp.Proc), MemberID: gp.MID, AtS: judge.Secs(op.Ret), FirstOffset: c.Recs[run.Start].Off,
			LastOffset: c.Recs[run.End-1].Off, Count: int(run.End - run.Start)}
		if m := c.Members[gp.Proc]; m != nil {
			e.Member = m.Name
		}
		if gp.HasGen {
			g := gp.Gen
			e.Generation = &g
		}
		for i := run.Start; i < run.End && len(e.Values) < judge.MaxListed; i++ {
			e.Offsets = append(e.Offsets, c.Recs[i].Off)
			e.Values = append(e.Values, c.Vals[c.Recs[i].Val].Str)
		}
		for _, h := range run.Holders {
			e.HeldBy = append(e.HeldBy, a.memberWords(h))
		}
		client := c.HeldBy(gp.Proc)
		since := int64(-1)
		if m := c.Members[gp.Proc]; m != nil {
			since = m.SubAt
		}
		var took *model.Rebalance
		for i := range c.Rebals {
			r := &c.Rebals[i]
			if r.At >= op.Call || c.HeldBy(r.Proc) != client {
				continue
			}
			since = max(since, r.At)
			if slices.Contains(r.Assigned, run.TP) {
				took = nil
			}
			if slices.Contains(r.Revoked, run.TP) || slices.Contains(r.Lost, run.TP) {
				took = r
			}
		}
		for _, h := range run.Held {
			e.Held = append(e.Held, c.TPs[h].Name())
		}
		if took != nil {
			ref := RebalanceRef{Index: took.Index, Process: int(took.Proc), AtS: judge.Secs(took.At), Kind: "revoked"}
			if slices.Contains(took.Lost, run.TP) {
				ref.Kind = "lost"
			}
			if took.HasGen {
				g := took.Gen
				ref.Generation = &g
			}
			e.TakenBy = &ref
		}
		e.Faults = a.places.FaultsBetween(since, op.Ret)
		e.Requests = a.places.RequestsBetween(since, op.Ret)
		e.Text = outsideText(&e)
		a.out.DeliveryOutsideAssignment = append(a.out.DeliveryOutsideAssignment, e)
	}
}

// memberWords names a member process: "p11 (member m1)".
func (a *run) memberWords(p int32) string {
	if m := a.c.Members[p]; m != nil {
		return fmt.Sprintf("p%d (member %s)", p, m.Name)
	}
	return fmt.Sprintf("p%d", p)
}

func outsideText(e *OutsideAssignmentEntry) string {
	s := fmt.Sprintf("group %s: %s delivered %s of %s-%d at %s (%s) at %.1f s from a partition its client did not hold",
		e.Group, who(e.Process, e.Member, e.Generation), tally.N(e.Count, "record", "records"), e.Topic, e.Partition, judge.OffsetSpan(e.FirstOffset, e.LastOffset),
		strings.Join(e.Values, ", "), e.AtS)
	if len(e.Held) > 0 {
		s += " (it held " + strings.Join(e.Held, ", ") + ")"
	} else {
		s += " (it held none)"
	}
	if r := e.TakenBy; r != nil {
		s += fmt.Sprintf(": the rebalance at %.1f s (generation %s) %s it from p%d", r.AtS, genText(r.Generation), r.Kind, r.Process)
	} else {
		s += ": no rebalance of its client had assigned it"
	}
	if len(e.HeldBy) > 0 {
		s += "; held then by " + strings.Join(e.HeldBy, ", ")
	}
	if len(e.Faults) > 0 {
		var fs []string
		for _, f := range e.Faults {
			fs = append(fs, f.String())
		}
		s += "; faults since its client's last rebalance: " + strings.Join(fs, ", ")
	}
	if w := judge.RequestsWords("request actions since its client's last rebalance: ", e.Requests); w != "" {
		s += "; " + w
	}
	return s
}
