package checker

import (
	"fmt"
	"slices"
)

// Redeliveries of a group (docs/HISTORY.md, "Consumer groups: what the
// checker proves"): records delivered again, grouped into ranges, with
// their cause and words that claim no more than the history shows.

// redeliveries finds records a group delivered more than once (the same
// value at the same offset), grouped into ranges by who delivered them
// first and again, and says why: the new owner resumed below a committed
// offset, the member was restarted, the partition was reassigned, or the
// same member went back within a generation.
func (a *analysis) redeliveries() {
	c := a.c
	type againAt struct {
		d  delivery
		tp int32
	}
	var again []againAt // per entry, its first delivery again
	for _, key := range sortedGroupTPs(a.dels) {
		first := map[int64]delivery{}
		var cur *RedeliveryEntry
		var curKey [3]int32
		for _, d := range a.dels[key] {
			f, ok := first[d.off]
			if !ok {
				first[d.off] = d
				continue
			}
			if f.val != d.val {
				continue // another value at the offset: offset-reuse, not a redelivery
			}
			a.redeliveredN++
			cause := a.cause(key, f, d)
			k := [3]int32{c.gpolls[f.gpoll].proc, c.gpolls[d.gpoll].proc, int32(len(cause))}
			if cur == nil || k != curKey || cur.Cause != cause || d.off <= cur.LastOffset {
				t := c.TPs[key.tp]
				a.r.Anomalies.Redelivery = append(a.r.Anomalies.Redelivery, RedeliveryEntry{Group: c.groupNames.list[key.group],
					Topic: t.Topic, Partition: t.Partition, FirstOffset: d.off, First: a.deliveryRef(f), Again: a.deliveryRef(d), Cause: cause})
				cur, curKey = &a.r.Anomalies.Redelivery[len(a.r.Anomalies.Redelivery)-1], k
				again = append(again, againAt{d, key.tp})
			}
			cur.LastOffset = d.off
			cur.Count++
		}
	}
	for i := range a.r.Anomalies.Redelivery {
		e := &a.r.Anomalies.Redelivery[i]
		f, g := e.First, e.Again
		s := fmt.Sprintf("group %s delivered %d records of %s-%d at offsets %d-%d again: first to %s at %.1f s, again to %s at %.1f s",
			e.Group, e.Count, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, who(f.Process, f.Member, f.Generation), f.AtS,
			who(g.Process, g.Member, g.Generation), g.AtS)
		switch e.Cause {
		case CauseCommitBackwards:
			s += ", which resumed below the group's committed offset (commit-backwards)"
		case CauseRestart:
			s += fmt.Sprintf(", after member %s's process p%d was replaced by p%d", g.Member, f.Process, g.Process)
			s += a.resumeWords(again[i].d, again[i].tp, ", which ")
		case CauseRebalance:
			s += fmt.Sprintf(", after a rebalance: the partition was assigned in generation %s", genText(g.Generation))
			s += a.resumeWords(again[i].d, again[i].tp, " and ")
		case CauseSameGeneration:
			s += ", by the same member within one generation (see nonmonotonic-poll)"
		}
		e.Text = s
	}
}

func genText(g *int32) string {
	if g == nil {
		return "unknown"
	}
	return fmt.Sprint(*g)
}

// resumeWords says where the client that delivered d again resumed the
// partition after its last assignment, as far as the history shows it:
// from the group's committed offset only when its first delivery there was
// at the offset the group had committed (ok) when the assignment was
// recorded; else where it did resume; nothing when the history holds no
// assignment of it before d.
func (a *analysis) resumeWords(d delivery, tp int32, join string) string {
	c := a.c
	client := c.heldBy(c.gpolls[d.gpoll].proc)
	var last *resumedAt
	for i := range c.resumed {
		r := &c.resumed[i]
		if r.gpoll <= d.gpoll && r.tp == tp && c.heldBy(r.proc) == client {
			last = r
		}
	}
	switch {
	case last == nil:
		return ""
	case last.committed == last.off:
		return fmt.Sprintf("%sresumed from the group's committed offset (offset %d, committed before)", join, last.off)
	case last.committed < 0:
		return fmt.Sprintf("%sresumed at offset %d, with nothing committed on the partition", join, last.off)
	}
	return fmt.Sprintf("%sresumed at offset %d, not at the group's committed offset %d", join, last.off, last.committed)
}

// cause says why delivery d repeated f. Processes of one client (a
// process that continues another's, groupcontinue.go) are one consumer:
// a redelivery between them is never a restart.
func (a *analysis) cause(key groupTP, f, d delivery) string {
	c := a.c
	pf, pd := c.gpolls[f.gpoll], c.gpolls[d.gpoll]
	for _, b := range c.backs {
		if b.kind == ResumedBelowCommit && b.group == key.group && b.tp == key.tp && b.proc == pd.proc &&
			d.off >= b.resumed && d.off < b.committed && c.gpolls[b.gpoll].poll <= pd.poll {
			return CauseCommitBackwards
		}
	}
	client := c.heldBy(pd.proc)
	sameClient := c.heldBy(pf.proc) == client
	mf, md := c.members[pf.proc], c.members[pd.proc]
	if !sameClient && mf != nil && md != nil && mf.name == md.name {
		return CauseRestart
	}
	if !sameClient || pf.gen != pd.gen || pf.hasGen != pd.hasGen {
		return CauseRebalance
	}
	for _, r := range c.rebals {
		if c.heldBy(r.proc) == client && r.at > c.Polls[pf.poll].Ret && r.at < c.Polls[pd.poll].Call && slices.Contains(r.assigned, key.tp) {
			return CauseRebalance
		}
	}
	return CauseSameGeneration
}
