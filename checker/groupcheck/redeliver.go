package groupcheck

import (
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

// Redeliveries of a group (docs/HISTORY.md, "Consumer groups: what the
// checker proves"): records delivered again, grouped into ranges, with
// their cause and words that claim no more than the history shows.

// redeliveries finds records a group delivered more than once (the same
// value at the same offset), grouped into ranges by who delivered them
// first and again, and says why: the new owner resumed below a committed
// offset, the member was restarted, the partition was reassigned, or the
// same member went back within a generation.
func (a *run) redeliveries() {
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
			k := [3]int32{c.GPolls[f.gpoll].Proc, c.GPolls[d.gpoll].Proc, int32(len(cause))}
			if cur == nil || k != curKey || cur.Cause != cause || d.off <= cur.LastOffset {
				t := c.TPs[key.tp]
				a.out.Redelivery = append(a.out.Redelivery, RedeliveryEntry{Group: c.GroupNames.List[key.group],
					Topic: t.Topic, Partition: t.Partition, FirstOffset: d.off, First: a.deliveryRef(f), Again: a.deliveryRef(d), Cause: cause})
				cur, curKey = &a.out.Redelivery[len(a.out.Redelivery)-1], k
				again = append(again, againAt{d, key.tp})
			}
			cur.LastOffset = d.off
			cur.Count++
		}
	}
	for i := range a.out.Redelivery {
		e := &a.out.Redelivery[i]
		f, g := e.First, e.Again
		s := fmt.Sprintf("group %s delivered %s of %s-%d at %s again: first to %s at %.1f s, again to %s at %.1f s",
			e.Group, tally.N(e.Count, "record", "records"), e.Topic, e.Partition, judge.OffsetSpan(e.FirstOffset, e.LastOffset), who(f.Process, f.Member, f.Generation), f.AtS,
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
func (a *run) resumeWords(d delivery, tp int32, join string) string {
	c := a.c
	client := c.HeldBy(c.GPolls[d.gpoll].Proc)
	var last *model.Resumed
	for i := range c.Resumed {
		r := &c.Resumed[i]
		if r.GPoll <= d.gpoll && r.TP == tp && c.HeldBy(r.Proc) == client {
			last = r
		}
	}
	switch {
	case last == nil:
		return ""
	case last.Committed == last.Off:
		return fmt.Sprintf("%sresumed from the group's committed offset (offset %d, committed before)", join, last.Off)
	case last.Committed < 0:
		return fmt.Sprintf("%sresumed at offset %d, with nothing committed on the partition", join, last.Off)
	}
	return fmt.Sprintf("%sresumed at offset %d, not at the group's committed offset %d", join, last.Off, last.Committed)
}

// cause says why delivery d repeated f. Processes of one client (a
// process that continues another's, model.Groups.HeldBy) are one consumer:
// a redelivery between them is never a restart.
func (a *run) cause(key groupTP, f, d delivery) string {
	c := a.c
	pf, pd := c.GPolls[f.gpoll], c.GPolls[d.gpoll]
	for _, b := range c.Backs {
		if b.Kind == ResumedBelowCommit && b.Group == key.group && b.TP == key.tp && b.Proc == pd.Proc &&
			d.off >= b.Resumed && d.off < b.Committed && c.GPolls[b.GPoll].Poll <= pd.Poll {
			return CauseCommitBackwards
		}
	}
	client := c.HeldBy(pd.Proc)
	sameClient := c.HeldBy(pf.Proc) == client
	mf, md := c.Members[pf.Proc], c.Members[pd.Proc]
	if !sameClient && mf != nil && md != nil && mf.Name == md.Name {
		return CauseRestart
	}
	if !sameClient || pf.Gen != pd.Gen || pf.HasGen != pd.HasGen {
		return CauseRebalance
	}
	for _, r := range c.Rebals {
		if c.HeldBy(r.Proc) == client && r.At > c.Polls[pf.Poll].Ret && r.At < c.Polls[pd.Poll].Call && slices.Contains(r.Assigned, key.tp) {
			return CauseRebalance
		}
	}
	return CauseSameGeneration
}
