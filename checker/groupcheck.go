package checker

import (
	"cmp"
	"fmt"
	"github.com/kchaos/kchaos/checker/model"
	"slices"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// The consumer-group checks (docs/HISTORY.md "Consumer groups: what the
// checker proves"): lost-by-commit, commit-backwards and redelivery. Poll
// order per member is the v1 rule (client.go), reset by rebalances and new
// generations as the stream is read (group.go).

// delivery is one record a group member's poll returned.
type delivery struct {
	gpoll int32
	off   int64
	val   int32
}

func (a *analysis) groupChecks() {
	c := a.c
	if len(c.gpolls) == 0 && len(c.commits) == 0 && len(c.rebals) == 0 {
		return
	}
	// Deliveries per group and partition, in completion order (c.polls
	// is in completion order, and so is c.gpolls).
	a.dels = map[groupTP][]delivery{}
	a.delivered = make([]map[int32]bool, len(c.groupNames.list))
	for g := range a.delivered {
		a.delivered[g] = map[int32]bool{}
	}
	for gi, gp := range c.gpolls {
		op := c.Polls[gp.poll]
		for i := op.Start; i < op.End; i++ {
			r := c.Recs[i]
			key := groupTP{gp.group, r.TP}
			a.dels[key] = append(a.dels[key], delivery{gpoll: int32(gi), off: r.Off, val: r.Val})
			a.delivered[gp.group][r.Val] = true
		}
	}
	a.commitBackwards()
	a.lostByCommit()
	a.redeliveries()
	a.outsideAssignment() // groupoutside.go
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

func (a *analysis) commitRef(ci int32, tp int32) CommitRef {
	c := a.c
	op := &c.commits[ci]
	r := CommitRef{Index: op.index, Process: int(op.proc), MemberID: op.mid, Type: typName(op.typ), Error: op.err,
		Auto: op.auto, InvokedS: secs(op.call), DoneS: secs(op.ret), Offset: -1}
	if m := c.members[op.proc]; m != nil {
		r.Member = m.name
	}
	if op.hasGen {
		g := op.gen
		r.Generation = &g
	}
	for _, cp := range op.parts {
		if cp.tp == tp {
			r.Offset = cp.off
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

func (a *analysis) deliveryRef(d delivery) DeliveryRef {
	c := a.c
	gp := c.gpolls[d.gpoll]
	r := DeliveryRef{Process: int(gp.proc), MemberID: gp.mid, Offset: d.off, Value: c.Vals[d.val].Str, AtS: secs(c.Polls[gp.poll].Ret)}
	if m := c.members[gp.proc]; m != nil {
		r.Member = m.name
	}
	if gp.hasGen {
		g := gp.gen
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
func (a *analysis) okCommits() map[groupTP][]int32 {
	c := a.c
	idx := make([]int32, 0, len(c.commits))
	for i := range c.commits {
		if c.commits[i].typ == model.OpOK {
			idx = append(idx, int32(i))
		}
	}
	slices.SortStableFunc(idx, func(x, y int32) int { return cmp.Compare(c.commits[x].ret, c.commits[y].ret) })
	out := map[groupTP][]int32{}
	for _, ci := range idx {
		op := &c.commits[ci]
		for _, cp := range op.parts {
			if cp.ok {
				key := groupTP{op.group, cp.tp}
				out[key] = append(out[key], ci)
			}
		}
	}
	return out
}

func (a *analysis) partOff(ci, tp int32) int64 {
	for _, cp := range a.c.commits[ci].parts {
		if cp.tp == tp {
			return cp.off
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
// (grouplatest.go), and must deliver the rest.
func (a *analysis) lostByCommit() {
	c := a.c
	oks := a.okCommits()
	latest := make([]bool, len(c.groupNames.list))
	rc := make([]bool, len(c.groupNames.list))
	for _, m := range c.members {
		latest[m.group] = latest[m.group] || m.latest
		rc[m.group] = rc[m.group] || m.rc
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
		var resets []resetEp
		if latest[key.group] {
			resets = a.resetsOf(key) // grouplatest.go
		}
		top := levels[len(levels)-1]
		var cur *LostByCommitEntry
		curBy := int32(-1)
		for _, r := range a.finalRecs(key.tp) {
			if r.Off >= top {
				break
			}
			lost := !a.delivered[key.group][r.Val] && (!rc[key.group] || c.committedVisible(r.Val, r.TP, r.Off)) &&
				(!latest[key.group] || !a.excused(resets, r))
			if !lost {
				cur = nil
				continue
			}
			ci := by[sort.Search(len(levels), func(i int) bool { return levels[i] > r.Off })]
			if cur == nil || curBy != ci {
				t := c.TPs[key.tp]
				a.r.Anomalies.LostByCommit = append(a.r.Anomalies.LostByCommit, LostByCommitEntry{
					Group: c.groupNames.list[key.group], Topic: t.Topic, Partition: t.Partition, FirstOffset: r.Off,
					Commit: a.commitRef(ci, key.tp)})
				cur, curBy = &a.r.Anomalies.LostByCommit[len(a.r.Anomalies.LostByCommit)-1], ci
			}
			cur.LastOffset = r.Off
			cur.Count++
			a.lostByCommitN++
			if len(cur.Values) < maxListed {
				cur.Values = append(cur.Values, c.Vals[r.Val].Str)
			}
			if s, _ := c.writer(r.Val, r.TP, r.Off); s >= 0 && c.Sends[s].Typ == model.OpOK && c.Sends[s].Ret > c.commits[ci].ret {
				cur.AckedAfterCommit++
			}
		}
	}
	for i := range a.r.Anomalies.LostByCommit {
		e := &a.r.Anomalies.LostByCommit[i]
		key := groupTP{c.groupNames.idx[e.Group], c.tp([]byte(e.Topic), e.Partition)}
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

func (a *analysis) lostByCommitText(e *LostByCommitEntry) string {
	cm := e.Commit
	kind := "commit"
	if cm.Auto {
		kind = "auto-commit"
	}
	s := fmt.Sprintf("group %s: %d records of %s-%d at offsets %d-%d (%s) are in the log but were never delivered to any member of the group, "+
		"yet %s #%d by %s committed offset %d at %.1f s: the group will not read them again",
		e.Group, e.Count, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, strings.Join(e.Values, ", "),
		kind, cm.Index, who(cm.Process, cm.Member, cm.Generation), cm.Offset, cm.DoneS)
	if d := e.LastDelivered; d != nil {
		s += fmt.Sprintf("; its last delivery below them was offset %d, by %s at %.1f s", d.Offset, who(d.Process, d.Member, d.Generation), d.AtS)
	} else {
		s += "; the group delivered nothing below them"
	}
	if e.AckedAfterCommit > 0 {
		s += fmt.Sprintf("; %d of them were acked after the commit: written below a committed offset", e.AckedAfterCommit)
	}
	return s
}

// commitBackwards reports what group.go found while streaming, with what
// the history holds that explains it.
func (a *analysis) commitBackwards() {
	c := a.c
	for _, b := range c.backs {
		t := c.TPs[b.tp]
		e := CommitBackwardsEntry{Group: c.groupNames.list[b.group], Topic: t.Topic, Partition: t.Partition, Kind: b.kind,
			Committed: b.committed, Commit: a.commitRef(b.commit, b.tp), Resumed: b.resumed, By: b.committed - b.resumed}
		var what string
		switch b.kind {
		case ResumedBelowCommit:
			gp := c.gpolls[b.gpoll]
			op := c.Polls[gp.poll]
			var recVal int32 = -1
			for i := op.Start; i < op.End; i++ {
				if c.Recs[i].TP == b.tp && c.Recs[i].Off == b.resumed {
					recVal = c.Recs[i].Val
				}
			}
			d := a.deliveryRef(delivery{gpoll: b.gpoll, off: b.resumed, val: max(recVal, 0)})
			e.Member = &d
			rb := c.rebals[b.rebal]
			what = fmt.Sprintf("then %s, assigned the partition at %.1f s, resumed at offset %d", who(d.Process, d.Member, d.Generation), secs(rb.at), b.resumed)
		case CommittedLower:
			l := a.commitRef(b.lower, b.tp)
			e.Lower = &l
			what = fmt.Sprintf("then commit #%d by %s committed offset %d at %.1f s", l.Index, who(l.Process, l.Member, l.Generation), l.Offset, l.DoneS)
		}
		from := c.commits[b.commit].ret
		for _, fi := range a.places.Faults() {
			if op := c.Nem[fi]; op.Call > from && op.Call <= b.at {
				e.Faults = append(e.Faults, a.faultRef(fi))
			}
		}
		e.Causes = a.backCauses(&e, b, from)
		cm := e.Commit
		e.Text = fmt.Sprintf("group %s's committed offset of %s-%d went back by %d: commit #%d by %s committed offset %d at %.1f s, %s; %s",
			e.Group, e.Topic, e.Partition, e.By, cm.Index, who(cm.Process, cm.Member, cm.Generation), cm.Offset, cm.DoneS, what,
			strings.Join(e.Causes, "; "))
		a.r.Anomalies.CommitBackwards = append(a.r.Anomalies.CommitBackwards, e)
	}
}

// backCauses lists what the history holds that explains a
// commit-backwards: faults between (those on __consumer_offsets first),
// the log truncated below the committed offset, commits that ended
// unknown. It names nothing the history does not hold.
func (a *analysis) backCauses(e *CommitBackwardsEntry, b backOp, from int64) []string {
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
	if f := c.TPs[b.tp].Final; f >= 0 {
		if end, ok := c.Finals[f].Ends[b.tp]; ok && end < b.committed {
			out = append(out, fmt.Sprintf("the log of %s-%d ends at %d (final read), below the committed offset: the partition was truncated and the position reset", e.Topic, e.Partition, end))
		}
	}
	for _, r := range a.r.Anomalies.OffsetReuse {
		if r.Topic == e.Topic && r.Partition == e.Partition && r.Offset >= b.resumed && r.Offset < b.committed {
			out = append(out, fmt.Sprintf("offset %d of the partition was reused (the log was truncated below the committed offset)", r.Offset))
			break
		}
	}
	n := 0
	for i := range c.commits {
		op := &c.commits[i]
		if op.group == b.group && op.typ == model.OpInfo && op.call > from && op.call <= b.at {
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

// killedAt finds the member processes that a member fault took away: a
// member-kill or member-leave (done, ok) names its member in
// details.member, and ends the process of that member that subscribed
// last before it. A killed process records nothing more, so without this
// it would seem to hold its partitions to the end.
func (a *analysis) killedAt() map[int32]int64 {
	c := a.c
	out := map[int32]int64{}
	for _, op := range c.Nem {
		if (op.F != histories.FMemberKill && op.F != histories.FMemberLeave) || op.Typ != histories.OK {
			continue
		}
		name, _ := op.V.Details["member"].(string)
		best, bestAt := int32(-1), int64(-1)
		for p, m := range c.members {
			if m.name == name && m.subAt <= op.Call && m.subAt > bestAt {
				best, bestAt = p, m.subAt
			}
		}
		if best >= 0 {
			if g, ok := c.goneAt[best]; !ok || g > op.Call {
				out[best] = op.Call
			}
		}
	}
	return out
}

// groupStats describes the groups; nil without any.
func (a *analysis) groupStats() *GroupStats {
	c := a.c
	if len(c.groupNames.list) == 0 {
		return nil
	}
	st := &GroupStats{Groups: len(c.groupNames.list), Processes: len(c.members), Rebalances: len(c.rebals),
		Redelivered: a.redeliveredN, LostByCommit: a.lostByCommitN}
	names := map[string]bool{}
	for _, m := range c.members {
		names[c.groupNames.list[m.group]+"\x00"+m.name] = true
	}
	st.Members = len(names)
	for i := range c.commits {
		if st.Commits == nil {
			st.Commits = map[string]int{}
		}
		st.Commits[typName(c.commits[i].typ)]++
		if c.commits[i].auto {
			st.Commits["auto"]++
		}
	}
	for _, ds := range a.dels {
		st.Delivered += len(ds)
	}
	st.UnassignedS = a.unassigned()
	return st
}

// unassigned measures, per partition, the seconds from its first
// assignment to the last group event during which no live member of any
// group held it (a member holds a partition from the rebalance that
// assigned it to the one that revoked or lost it, or until an info retired
// its process).
func (a *analysis) unassigned() map[string]float64 {
	c := a.c
	if len(c.rebals) == 0 {
		return nil
	}
	type ev struct {
		at    int64
		proc  int32
		tp    int32
		delta int // +1 held, -1 released; 0 a process retired
	}
	var evs []ev
	end := int64(0)
	// A process whose client another continues holds what it held
	// through it (groupcontinue.go): its events count as the last one's.
	for _, r := range c.rebals {
		p := c.heldBy(r.proc)
		for _, tp := range slices.Concat(r.revoked, r.lost) {
			evs = append(evs, ev{r.at, p, tp, -1})
		}
		for _, tp := range r.assigned {
			evs = append(evs, ev{r.at, p, tp, +1})
		}
		end = max(end, r.at)
	}
	for p, at := range c.goneAt {
		evs = append(evs, ev{at, c.heldBy(p), -1, 0})
		end = max(end, at)
	}
	for p, at := range a.killedAt() {
		evs = append(evs, ev{at, c.heldBy(p), -1, 0})
	}
	for _, gp := range c.gpolls {
		end = max(end, c.Polls[gp.poll].Ret)
	}
	for i := range c.commits {
		end = max(end, c.commits[i].ret)
	}
	slices.SortStableFunc(evs, func(x, y ev) int { return cmp.Compare(x.at, y.at) })
	held := map[procTP]bool{}
	count := map[int32]int{}
	since := map[int32]int64{} // tp -> when it lost its last holder
	total := map[int32]int64{}
	release := func(k procTP, at int64) {
		if !held[k] {
			return
		}
		delete(held, k)
		if count[k.tp]--; count[k.tp] == 0 {
			since[k.tp] = at
		}
	}
	for _, e := range evs {
		switch {
		case e.delta == 0:
			for k := range held {
				if k.proc == e.proc {
					release(k, e.at)
				}
			}
		case e.delta < 0:
			release(procTP{e.proc, e.tp}, e.at)
		default:
			k := procTP{e.proc, e.tp}
			if held[k] {
				continue
			}
			held[k] = true
			if s, ok := since[e.tp]; ok && count[e.tp] == 0 {
				total[e.tp] += e.at - s
				delete(since, e.tp)
			}
			if _, ok := total[e.tp]; !ok {
				total[e.tp] = 0
			}
			count[e.tp]++
		}
	}
	for tp, s := range since {
		if count[tp] == 0 {
			total[tp] += end - s
		}
	}
	out := map[string]float64{}
	for tp, d := range total {
		out[c.TPs[tp].Name()] = secs(d)
	}
	return out
}

// explainGroups adds the group anomalies to the explanations, in words.
func (a *analysis) explainGroups() {
	an := &a.r.Anomalies
	add := func(kind, topic string, p int32, first, last int64, n int, vals []string, faults []FaultRef, text string) {
		a.r.Explanations = append(a.r.Explanations, Explanation{Kind: kind, Topic: topic, Partition: p,
			FirstOffset: first, LastOffset: last, Count: n, Values: vals, FaultsAfter: faults, Text: text})
	}
	for _, e := range an.LostByCommit {
		add(LostByCommit, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, e.Count, e.Values, nil, e.Text)
	}
	for _, e := range an.CommitBackwards {
		add(CommitBackwards, e.Topic, e.Partition, e.Resumed, e.Committed-1, int(e.By), nil, e.Faults, e.Text)
	}
	for _, e := range an.Redelivery {
		add(Redelivery, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, e.Count, nil, nil, e.Text)
	}
	for _, e := range an.DeliveryOutsideAssignment {
		add(DeliveryOutsideAssignment, e.Topic, e.Partition, e.FirstOffset, e.LastOffset, e.Count, e.Values, e.Faults, e.Text)
	}
}
