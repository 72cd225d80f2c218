package groupcheck

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

// The consumer-group checks (docs/HISTORY.md "Consumer groups: what the
// checker proves"): lost-by-commit, commit-backwards and redelivery. Poll
// order per member is the v1 rule (package checker, client.go), reset by rebalances and new
// generations as the stream is read (package checker, group.go).

// delivery is one record a group member's poll returned.
type delivery struct {
	gpoll int32
	off   int64
	val   int32
}

func (a *run) groupChecks() {
	c := a.c
	if len(c.GPolls) == 0 && len(c.Commits) == 0 && len(c.Rebals) == 0 {
		return
	}
	// Deliveries per group and partition, in completion order (History.Polls
	// is in completion order, and so is GPolls).
	a.dels = map[groupTP][]delivery{}
	a.delivered = make([]map[int32]bool, len(c.GroupNames.List))
	for g := range a.delivered {
		a.delivered[g] = map[int32]bool{}
	}
	for gi, gp := range c.GPolls {
		op := c.Polls[gp.Poll]
		for i := op.Start; i < op.End; i++ {
			r := c.Recs[i]
			key := groupTP{gp.Group, r.TP}
			a.dels[key] = append(a.dels[key], delivery{gpoll: int32(gi), off: r.Off, val: r.Val})
			a.delivered[gp.Group][r.Val] = true
		}
	}
	a.commitBackwards()
	a.lostByCommit()
	a.redeliveries()
	a.outsideAssignment() // outside.go
}

// sortedGroupTPs returns the keys of m in (group, partition) order.
func sortedGroupTPs[V any](m map[groupTP]V) []groupTP {
	keys := make([]groupTP, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y groupTP) int { return cmp.Or(cmp.Compare(x.group, y.group), cmp.Compare(x.tp, y.tp)) })
	return keys
}

func (a *run) commitRef(ci int32, tp int32) CommitRef {
	c := a.c
	op := &c.Commits[ci]
	r := CommitRef{Index: op.Index, Process: int(op.Proc), MemberID: op.MID, Type: typName(op.Typ), Error: op.Err,
		Auto: op.Auto, InvokedS: judge.Secs(op.Call), DoneS: judge.Secs(op.Ret), Offset: -1}
	if m := c.Members[op.Proc]; m != nil {
		r.Member = m.Name
	}
	if op.HasGen {
		g := op.Gen
		r.Generation = &g
	}
	for _, cp := range op.Parts {
		if cp.TP == tp {
			r.Offset = cp.Off
			if cp.Epoch != model.NoEpochRecorded {
				e := cp.Epoch
				r.LeaderEpoch = &e
			}
		}
	}
	return r
}

func typName(t uint8) string {
	switch t {
	case model.OpOK:
		return "ok"
	case model.OpFail:
		return "fail"
	case model.OpInfo:
		return "info"
	}
	return "open"
}

func (a *run) deliveryRef(d delivery) DeliveryRef {
	c := a.c
	gp := c.GPolls[d.gpoll]
	r := DeliveryRef{Process: int(gp.Proc), MemberID: gp.MID, Offset: d.off, Value: c.Vals[d.val].Str, AtS: judge.Secs(c.Polls[gp.Poll].Ret)}
	if m := c.Members[gp.Proc]; m != nil {
		r.Member = m.Name
	}
	if gp.HasGen {
		g := gp.Gen
		r.Generation = &g
	}
	return r
}

// who names a member process in a text: "p10 (member m0, generation 1)".
func who(proc int, member string, gen *int32) string {
	s := fmt.Sprintf("p%d", proc)
	var parts []string
	if member != "" {
		parts = append(parts, "member "+member)
	}
	if gen != nil {
		parts = append(parts, fmt.Sprintf("generation %d", *gen))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// okCommits returns, per group and partition, the ok commits that
// committed it, in completion order.
func (a *run) okCommits() map[groupTP][]int32 {
	c := a.c
	idx := make([]int32, 0, len(c.Commits))
	for i := range c.Commits {
		if c.Commits[i].Typ == model.OpOK {
			idx = append(idx, int32(i))
		}
	}
	slices.SortStableFunc(idx, func(x, y int32) int { return cmp.Compare(c.Commits[x].Ret, c.Commits[y].Ret) })
	out := map[groupTP][]int32{}
	for _, ci := range idx {
		op := &c.Commits[ci]
		for _, cp := range op.Parts {
			if cp.OK {
				key := groupTP{op.Group, cp.TP}
				out[key] = append(out[key], ci)
			}
		}
	}
	return out
}

func (a *run) partOff(ci, tp int32) int64 {
	for _, cp := range a.c.Commits[ci].Parts {
		if cp.TP == tp {
			return cp.Off
		}
	}
	return -1
}

// lostByCommit finds, per group and partition, the records of the
// completed final read below the highest offset the group committed (ok)
// that no member of the group delivered. The log must hold the record (the
// final read has it): a record the log lost is a lost write, not a loss by
// commit. A read_committed group never had aborted or open txns' records
// to deliver; a group that starts at the latest offset never had the
// records that a member's reset could have put below its position
// (latest.go), and must deliver the rest.
func (a *run) lostByCommit() {
	c := a.c
	oks := a.okCommits()
	latest := make([]bool, len(c.GroupNames.List))
	rc := make([]bool, len(c.GroupNames.List))
	for _, m := range c.Members {
		latest[m.Group] = latest[m.Group] || m.Latest
		rc[m.Group] = rc[m.Group] || m.RC
	}
	for _, key := range sortedGroupTPs(oks) {
		list := oks[key]
		if c.TPs[key.tp].Final < 0 {
			continue // cannot be told: the verdict is unknown for the partition anyway
		}
		// Running maximum of the committed offset, and the commit that
		// first reached each level.
		var levels []int64
		var by []int32
		for _, ci := range list {
			off := a.partOff(ci, key.tp)
			if len(levels) == 0 || off > levels[len(levels)-1] {
				levels, by = append(levels, off), append(by, ci)
			}
		}
		var resets []model.Reset
		if latest[key.group] {
			resets = a.resetsOf(key) // latest.go
		}
		top := levels[len(levels)-1]
		var cur *LostByCommitEntry
		curBy := int32(-1)
		for _, r := range judge.FinalRecs(c, key.tp) {
			if r.Off >= top {
				break
			}
			lost := !a.delivered[key.group][r.Val] && (!rc[key.group] || c.CommittedVisible(r.Val, r.TP, r.Off)) &&
				(!latest[key.group] || !a.excused(resets, r))
			if !lost {
				cur = nil
				continue
			}
			ci := by[sort.Search(len(levels), func(i int) bool { return levels[i] > r.Off })]
			if cur == nil || curBy != ci {
				t := c.TPs[key.tp]
				a.out.LostByCommit = append(a.out.LostByCommit, LostByCommitEntry{
					Group: c.GroupNames.List[key.group], Topic: t.Topic, Partition: t.Partition, FirstOffset: r.Off,
					Commit: a.commitRef(ci, key.tp)})
				cur, curBy = &a.out.LostByCommit[len(a.out.LostByCommit)-1], ci
			}
			cur.LastOffset = r.Off
			cur.Count++
			a.lostByCommitN++
			if len(cur.Values) < judge.MaxListed {
				cur.Values = append(cur.Values, c.Vals[r.Val].Str)
			}
			if s, _ := c.Writer(r.Val, r.TP, r.Off); s >= 0 && c.Sends[s].Typ == model.OpOK && c.Sends[s].Ret > c.Commits[ci].Ret {
				cur.AckedAfterCommit++
			}
		}
	}
	for i := range a.out.LostByCommit {
		e := &a.out.LostByCommit[i]
		key := groupTP{c.GroupNames.Idx[e.Group], a.tpOf(e.Topic, e.Partition)}
		var last *delivery
		for _, d := range a.dels[key] {
			if d.off < e.FirstOffset && (last == nil || d.off > last.off) {
				last = &d
			}
		}
		if last != nil {
			ref := a.deliveryRef(*last)
			e.LastDelivered = &ref
		}
		e.Text = a.lostByCommitText(e)
	}
}

func (a *run) lostByCommitText(e *LostByCommitEntry) string {
	cm := e.Commit
	kind := "commit"
	if cm.Auto {
		kind = "auto-commit"
	}
	are, were := "are", "were"
	if e.Count == 1 {
		are, were = "is", "was"
	}
	s := fmt.Sprintf("group %s: %s of %s-%d at %s (%s) %s in the log but %s never delivered to any member of the group, "+
		"yet %s #%d by %s committed offset %d at %.1f s: the group will not read them again",
		e.Group, tally.N(e.Count, "record", "records"), e.Topic, e.Partition, judge.OffsetSpan(e.FirstOffset, e.LastOffset), strings.Join(e.Values, ", "), are, were,
		kind, cm.Index, who(cm.Process, cm.Member, cm.Generation), cm.Offset, cm.DoneS)
	if d := e.LastDelivered; d != nil {
		s += fmt.Sprintf("; its last delivery below them was offset %d, by %s at %.1f s", d.Offset, who(d.Process, d.Member, d.Generation), d.AtS)
	} else {
		s += "; the group delivered nothing below them"
	}
	if e.AckedAfterCommit > 0 {
		s += fmt.Sprintf("; %d of them were acked after the commit: written below a committed offset", e.AckedAfterCommit)
	}
	if cm.LeaderEpoch != nil && *cm.LeaderEpoch < 0 {
		s += "; the commit carried no leader epoch, so a member starting from it could not detect a truncation of the log below it (KAFKA-20507)"
	}
	return s
}

// commitBackwards reports what package checker (group.go) found while streaming, with what
// the history holds that explains it.
func (a *run) commitBackwards() {
	c := a.c
	for _, b := range c.Backs {
		t := c.TPs[b.TP]
		e := CommitBackwardsEntry{Group: c.GroupNames.List[b.Group], Topic: t.Topic, Partition: t.Partition, Kind: b.Kind,
			Committed: b.Committed, Commit: a.commitRef(b.Commit, b.TP), Resumed: b.Resumed, By: b.Committed - b.Resumed}
		var what string
		switch b.Kind {
		case ResumedBelowCommit:
			gp := c.GPolls[b.GPoll]
			op := c.Polls[gp.Poll]
			var recVal int32 = -1
			for i := op.Start; i < op.End; i++ {
				if c.Recs[i].TP == b.TP && c.Recs[i].Off == b.Resumed {
					recVal = c.Recs[i].Val
				}
			}
			d := a.deliveryRef(delivery{gpoll: b.GPoll, off: b.Resumed, val: max(recVal, 0)})
			e.Member = &d
			rb := c.Rebals[b.Rebal]
			what = fmt.Sprintf("then %s, assigned the partition at %.1f s, resumed at offset %d", who(d.Process, d.Member, d.Generation), judge.Secs(rb.At), b.Resumed)
		case CommittedLower:
			l := a.commitRef(b.Lower, b.TP)
			e.Lower = &l
			what = fmt.Sprintf("then commit #%d by %s committed offset %d at %.1f s", l.Index, who(l.Process, l.Member, l.Generation), l.Offset, l.DoneS)
		}
		from := c.Commits[b.Commit].Ret
		for _, fi := range a.places.Faults() {
			if op := c.Nem[fi]; op.Call > from && op.Call <= b.At {
				e.Faults = append(e.Faults, a.places.FaultRef(fi))
			}
		}
		e.Requests = a.places.RequestsBetween(from, b.At)
		e.Causes = a.backCauses(&e, b, from)
		if w := judge.RequestsWords("request actions between the commit and the going back: ", e.Requests); w != "" {
			e.Causes = append(e.Causes, w)
		}
		cm := e.Commit
		e.Text = fmt.Sprintf("group %s's committed offset of %s-%d went back by %d: commit #%d by %s committed offset %d at %.1f s, %s; %s",
			e.Group, e.Topic, e.Partition, e.By, cm.Index, who(cm.Process, cm.Member, cm.Generation), cm.Offset, cm.DoneS, what,
			strings.Join(e.Causes, "; "))
		a.out.CommitBackwards = append(a.out.CommitBackwards, e)
	}
}

// backCauses lists what the history holds that explains a
// commit-backwards: faults between (those on __consumer_offsets first),
// the log truncated below the committed offset, commits that ended
// unknown. It names nothing the history does not hold.
func (a *run) backCauses(e *CommitBackwardsEntry, b model.Back, from int64) []string {
	c := a.c
	var out []string
	for _, f := range e.Faults {
		if mentionsOffsetsTopic(f.Details) {
			out = append(out, fmt.Sprintf("%s on __consumer_offsets (where the group's commits are stored), between the commit and the going back", f))
		}
	}
	var others []string
	for _, f := range e.Faults {
		if !mentionsOffsetsTopic(f.Details) {
			others = append(others, f.String())
		}
	}
	if len(others) > 0 {
		out = append(out, "faults between the commit and the going back: "+strings.Join(others, ", "))
	}
	if f := c.TPs[b.TP].Final; f >= 0 {
		if end, ok := c.Finals[f].Ends[b.TP]; ok && end < b.Committed {
			out = append(out, fmt.Sprintf("the log of %s-%d ends at %d (final read), below the committed offset: the partition was truncated and the position reset", e.Topic, e.Partition, end))
		}
	}
	for _, off := range a.facts.Reused(b.TP) {
		if off >= b.Resumed && off < b.Committed {
			out = append(out, fmt.Sprintf("offset %d of the partition was reused (the log was truncated below the committed offset)", off))
			break
		}
	}
	n := 0
	for i := range c.Commits {
		op := &c.Commits[i]
		if op.Group == b.Group && op.Typ == model.OpInfo && op.Call > from && op.Call <= b.At {
			n++
		}
	}
	if n > 0 {
		out = append(out, fmt.Sprintf("%d commits of the group in between ended unknown", n))
	}
	if len(out) == 0 {
		out = append(out, "the history holds no fault or truncation that explains it: the group coordinator returned an offset older than one it had acknowledged")
	}
	return out
}

// mentionsOffsetsTopic reports whether a fault's details name
// __consumer_offsets, or a target role that means its replicas (the
// nemesis's group-coordinator and group-coordinator-followers: the
// replicas of the __consumer_offsets partition that owns the group).
func mentionsOffsetsTopic(d map[string]any) bool {
	for _, v := range d {
		if s := fmt.Sprint(v); strings.Contains(s, "__consumer_offsets") || strings.Contains(s, "group-coordinator") {
			return true
		}
	}
	return false
}

// explainGroups adds the group anomalies to the explanations, in words.
func (a *run) explainGroups() {
	an := a.out
	add := func(kind, topic string, p int32, first, last int64, n int, vals []string, faults []judge.FaultRef, reqs []judge.RequestRef, text string) {
		a.expl = append(a.expl, judge.Explanation{Kind: kind, Topic: topic, Partition: p,
			FirstOffset: first, LastOffset: last, Count: n, Values: vals, FaultsAfter: faults, RequestsAfter: reqs, Text: text})
	}
	for _, e := range an.LostByCommit {
		add(LostByCommit, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, e.Count, e.Values, nil, nil, e.Text)
	}
	for _, e := range an.CommitBackwards {
		add(CommitBackwards, e.Topic, e.Partition, e.Resumed, e.Committed-1, int(e.By), nil, e.Faults, e.Requests, e.Text)
	}
	for _, e := range an.CommitLost {
		add(CommitLost, e.Topic, e.Partition, max(e.ReadBack, 0), e.Commit.Offset-1, int(e.By), nil, e.Faults, e.Requests, e.Text)
	}
	for _, e := range an.CommitUnexplained {
		add(CommitUnexplained, e.Topic, e.Partition, e.ReadBack, e.ReadBack, 1, nil, nil, nil, e.Text)
	}
	for _, e := range an.Redelivery {
		add(Redelivery, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, e.Count, nil, nil, nil, e.Text)
	}
	for _, e := range an.DeliveryOutsideAssignment {
		add(DeliveryOutsideAssignment, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, e.Count, e.Values, e.Faults, e.Requests, e.Text)
	}
}
