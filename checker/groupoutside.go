package checker

import (
	"cmp"
	"fmt"
	"github.com/kchaos/kchaos/checker/model"
	"slices"
	"strings"
)

// delivery-outside-assignment (docs/HISTORY.md, "Consumer groups: what the
// checker proves"): a member's poll delivered records of a partition that
// its client did not hold when it polled, by the recording rule that
// histories.Holdings states once (held from the rebalance that assigned it
// to the one that revoked or lost it; a process that continues another's
// client holds what that one held). That is how a zombie consumer shows: a
// member the group fenced, or one that never had the partition, going on
// reading it. It is counted per poll and partition.

// outsideRun is the records of one partition that one group poll
// delivered outside its client's assignment: c.recs[start:end].
type outsideRun struct {
	gpoll, tp  int32
	start, end int32
	holders    []int32 // the live member processes that held tp then
	held       []int32 // what the poll's process held then
}

// noteOutside records the runs of group poll gi (process p of group g,
// its records sorted by partition) outside p's assignment. Such a
// delivery is one its recorded rebalances do not explain, so it may follow
// a reset of a latest group (grouplatest.go).
func (c *Checker) noteOutside(gi, p, g int32, op *model.Read) {
	for i, end := op.Start, op.End; i < end; {
		tp := c.Recs[i].TP
		j := i + 1
		for j < end && c.Recs[j].TP == tp {
			j++
		}
		if !c.holds.Holds(int(p), tp) {
			run := outsideRun{gpoll: gi, tp: tp, start: i, end: j, held: c.holds.Held(int(p), cmp.Compare[int32])}
			for _, h := range c.holds.Holders(tp) {
				if _, continued := c.contTo[int32(h)]; !continued && !c.gone[h] {
					run.holders = append(run.holders, int32(h))
				}
			}
			c.outside = append(c.outside, run)
			c.resets = append(c.resets, resetEp{group: g, tp: tp, below: c.Recs[i].Off, bound: op.Ret})
		}
		i = j
	}
}

// outsideAssignment turns the runs into entries, each with what the
// history holds around it: the partitions the client held, the rebalance
// that took this one from it (if one did), who held it, and the faults made
// since the client's last rebalance (or its subscribe).
func (a *analysis) outsideAssignment() {
	c := a.c
	for _, run := range c.outside {
		gp := c.gpolls[run.gpoll]
		op := c.Polls[gp.poll]
		t := c.TPs[run.tp]
		e := OutsideAssignmentEntry{Group: c.groupNames.list[gp.group], Topic: t.Topic, Partition: t.Partition,
			Process: int(gp.proc), MemberID: gp.mid, AtS: secs(op.Ret), FirstOffset: c.Recs[run.start].Off,
			LastOffset: c.Recs[run.end-1].Off, Count: int(run.end - run.start)}
		if m := c.members[gp.proc]; m != nil {
			e.Member = m.name
		}
		if gp.hasGen {
			g := gp.gen
			e.Generation = &g
		}
		for i := run.start; i < run.end && len(e.Values) < maxListed; i++ {
			e.Offsets = append(e.Offsets, c.Recs[i].Off)
			e.Values = append(e.Values, c.Vals[c.Recs[i].Val].Str)
		}
		for _, h := range run.holders {
			e.HeldBy = append(e.HeldBy, a.memberWords(h))
		}
		client := c.heldBy(gp.proc)
		since := int64(-1)
		if m := c.members[gp.proc]; m != nil {
			since = m.subAt
		}
		var took *rebalOp
		for i := range c.rebals {
			r := &c.rebals[i]
			if r.at >= op.Call || c.heldBy(r.proc) != client {
				continue
			}
			since = max(since, r.at)
			if slices.Contains(r.assigned, run.tp) {
				took = nil
			}
			if slices.Contains(r.revoked, run.tp) || slices.Contains(r.lost, run.tp) {
				took = r
			}
		}
		for _, h := range run.held {
			e.Held = append(e.Held, c.TPs[h].Name())
		}
		if took != nil {
			ref := RebalanceRef{Index: took.index, Process: int(took.proc), AtS: secs(took.at), Kind: "revoked"}
			if slices.Contains(took.lost, run.tp) {
				ref.Kind = "lost"
			}
			if took.hasGen {
				g := took.gen
				ref.Generation = &g
			}
			e.TakenBy = &ref
		}
		e.Faults = a.faultsBetween(since, op.Ret)
		e.Text = outsideText(&e)
		a.r.Anomalies.DeliveryOutsideAssignment = append(a.r.Anomalies.DeliveryOutsideAssignment, e)
	}
}

// memberWords names a member process: "p11 (member m1)".
func (a *analysis) memberWords(p int32) string {
	if m := a.c.members[p]; m != nil {
		return fmt.Sprintf("p%d (member %s)", p, m.name)
	}
	return fmt.Sprintf("p%d", p)
}

func outsideText(e *OutsideAssignmentEntry) string {
	s := fmt.Sprintf("group %s: %s delivered %d records of %s-%d at offsets %d-%d (%s) at %.1f s from a partition its client did not hold",
		e.Group, who(e.Process, e.Member, e.Generation), e.Count, e.Topic, e.Partition, e.FirstOffset, e.LastOffset,
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
	return s
}
