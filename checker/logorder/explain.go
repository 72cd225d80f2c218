package logorder

import (
	"cmp"
	"maps"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// lostItem is one lost send as the grouping sees it.
type lostItem struct {
	send  int32
	off   int64
	ack   int64
	epoch int32 // leader epoch observed at the ack, -1 if none
}

// explain groups lost writes, then reused offsets, into ranges.
func (a *run) explain() {
	c := a.c
	byTP := map[int32][]lostItem{}
	for _, s := range a.lost {
		op := &c.Sends[s]
		it := lostItem{send: s, off: op.Off, ack: op.Ret, epoch: -1}
		if seen, ok := a.lostSeen[s]; ok {
			// Never acked with an offset: where and when a read saw it.
			it.off, it.ack = seen.Off, seen.At
		}
		if o := c.TPs[op.TP].At(it.ack); o != nil {
			it.epoch = o.Epoch
		}
		byTP[op.TP] = append(byTP[op.TP], it)
	}
	tps := slices.Sorted(maps.Keys(byTP))
	for _, tp := range tps {
		for _, rng := range a.lostRanges(tp, byTP[tp]) {
			a.explainLost(tp, rng)
		}
	}
	a.explainReuse()
}

// lostRanges splits the lost sends of a partition into ranges. Sends acked
// in different leader epochs are different branches of the log and never
// share a range; within an epoch, sends are taken by offset, an offset seen
// twice starts another pass (two losses at the same offsets), and a send
// that survived between two lost ones, acked between them, ends a range.
func (a *run) lostRanges(tp int32, items []lostItem) [][]lostItem {
	c := a.c
	lostSet := map[int32]bool{}
	for _, it := range items {
		lostSet[it.send] = true
	}
	var surv []lostItem
	for _, i := range a.acked[tp] {
		if s := &c.Sends[i]; !lostSet[i] {
			surv = append(surv, lostItem{send: i, off: s.Off, ack: s.Ret})
		}
	}
	slices.SortFunc(surv, func(x, y lostItem) int { return cmp.Compare(x.off, y.off) })
	between := func(x, y lostItem) bool {
		lo := sort.Search(len(surv), func(i int) bool { return surv[i].off > x.off })
		from, to := min(x.ack, y.ack), max(x.ack, y.ack)
		for i := lo; i < len(surv) && surv[i].off < y.off; i++ {
			if surv[i].ack >= from && surv[i].ack <= to {
				return true
			}
		}
		return false
	}
	slices.SortFunc(items, func(x, y lostItem) int {
		return cmp.Or(cmp.Compare(x.epoch, y.epoch), cmp.Compare(x.off, y.off), cmp.Compare(x.ack, y.ack))
	})
	var out [][]lostItem
	for start := 0; start < len(items); {
		end := start
		for end < len(items) && items[end].epoch == items[start].epoch {
			end++
		}
		rest := items[start:end]
		for len(rest) > 0 {
			var pass, deferred []lostItem
			for _, it := range rest {
				if len(pass) == 0 || it.off > pass[len(pass)-1].off {
					pass = append(pass, it)
				} else {
					deferred = append(deferred, it)
				}
			}
			cur := []lostItem{pass[0]}
			for _, it := range pass[1:] {
				if between(cur[len(cur)-1], it) {
					out = append(out, cur)
					cur = nil
				}
				cur = append(cur, it)
			}
			out = append(out, cur)
			rest = deferred
		}
		start = end
	}
	slices.SortStableFunc(out, func(x, y []lostItem) int { return cmp.Compare(x[0].off, y[0].off) })
	return out
}

func (a *run) explainLost(tp int32, items []lostItem) {
	c := a.c
	t := c.TPs[tp]
	e := judge.Explanation{Kind: LostWrite, Topic: t.Topic, Partition: t.Partition,
		FirstOffset: items[0].off, LastOffset: items[len(items)-1].off, Count: len(items)}
	firstAck, lastAck := items[0].ack, items[0].ack
	for _, it := range items {
		op := &c.Sends[it.send]
		e.Offsets = append(e.Offsets, it.off)
		e.Values = append(e.Values, c.Vals[op.Val].Str)
		if _, ok := a.lostSeen[it.send]; ok {
			e.ReadNotAcked++
		}
		e.AckedS = append(e.AckedS, judge.Secs(it.ack))
		firstAck, lastAck = min(firstAck, it.ack), max(lastAck, it.ack)
		if o := t.At(it.ack); o != nil {
			if !slices.ContainsFunc(e.ISRAtAck, func(s []int32) bool { return slices.Equal(s, o.ISR) }) {
				e.ISRAtAck = append(e.ISRAtAck, o.ISR)
			}
			if !slices.Contains(e.LeaderAtAck, o.Leader) {
				e.LeaderAtAck = append(e.LeaderAtAck, o.Leader)
			}
			if !slices.Contains(e.EpochAtAck, o.Epoch) {
				e.EpochAtAck = append(e.EpochAtAck, o.Epoch)
			}
		}
	}
	e.FaultBefore = a.in.Places.FaultBefore(firstAck)
	// The read that judges the range: of the reads that lack its sends,
	// the one invoked last.
	by := a.lostBy[items[0].send]
	for _, it := range items[1:] {
		if f := a.lostBy[it.send]; c.Finals[f].Call > c.Finals[by].Call {
			by = f
		}
	}
	end := c.Finals[by].Call
	if r, ok := judge.FinalAtOf(a.c, by, tp, e.FirstOffset); ok {
		e.TookOver = a.takeover(t, r.Epoch)
	} else {
		ackEpoch := items[0].epoch
		for i := range t.Obs {
			if o := &t.Obs[i]; o.At > firstAck && o.Epoch > ackEpoch && o.Leader >= 0 {
				e.TookOver = a.takeover(t, o.Epoch)
				break
			}
		}
	}
	if e.TookOver != nil && e.TookOver.SinceS != nil {
		if since := t.EpochStart(e.TookOver.LeaderEpoch).At; since > firstAck {
			end = since
		}
	}
	e.FaultsAfter = a.in.Places.FaultsBetween(firstAck, end)
	e.Elections = elections(t, firstAck, end)
	e.NowHold = a.nowHold(by, tp, e.FirstOffset, e.LastOffset, lastAck)
	if fin := c.Finals[by]; fin.Ends != nil {
		if endOff, ok := fin.Ends[tp]; ok && endOff <= e.LastOffset {
			e.LogEnd = &endOff
		}
	}
	e.Text = lostText(t.Name(), &e)
	idx := len(a.expl)
	a.expl = append(a.expl, e)
	for _, it := range items {
		op := &c.Sends[it.send]
		le := LostWriteEntry{Topic: t.Topic, Partition: t.Partition, Offset: it.off, Value: c.Vals[op.Val].Str,
			Process: int(op.Proc), InvokedS: judge.Secs(op.Call), AckedS: judge.Secs(it.ack), AtAck: a.in.Places.Where(tp, it.ack),
			Range: idx, Faults: e.FaultsAfter}
		if seen, ok := a.lostSeen[it.send]; ok {
			le.AckedS = 0
			le.Outcome = a.sendRef(it.send).Type
			if le.Outcome == "ok" {
				le.Outcome = "ok without offset"
			}
			at := judge.Secs(seen.At)
			le.SeenS, le.SeenBy = &at, seen.By
		}
		if f := a.lostBy[it.send]; f != a.c.TPs[tp].Final {
			le.JudgedBy = judge.FinalRef(a.c, f, tp)
		}
		if r, ok := judge.FinalAtOf(a.c, a.lostBy[it.send], tp, it.off); ok {
			le.Now = &judge.Held{Value: c.Vals[r.Val].Str, LeaderEpoch: r.Epoch}
		}
		if e.TookOver != nil {
			epoch := e.TookOver.LeaderEpoch
			le.NewLeader, le.NewLeaderEpoch = e.TookOver.Leader, &epoch
		}
		a.out.LostWrite = append(a.out.LostWrite, le)
	}
}

// takeover describes leader epoch epoch of t from the observer's samples.
func (a *run) takeover(t *model.TP, epoch int32) *judge.Takeover {
	to := &judge.Takeover{LeaderEpoch: epoch}
	if st := t.EpochStart(epoch); st != nil {
		leader, since := st.Leader, judge.Secs(st.At)
		to.Leader, to.SinceS, to.Election = &leader, &since, st.Election
	}
	return to
}

// faultsBetween returns the faults made in (from, to], at most the last 5.
func (a *run) faultsBetween(from, to int64) []judge.FaultRef {
	return a.in.Places.FaultsBetween(from, to)
}

// elections returns the epoch rises observed in (from, to], at most 5.
func elections(t *model.TP, from, to int64) []judge.Election {
	var out []judge.Election
	for i := range t.Obs {
		o := &t.Obs[i]
		if o.At > from && o.At <= to && o.Election != "" && len(out) < 5 {
			out = append(out, judge.Election{AtS: judge.Secs(o.At), Leader: o.Leader, LeaderEpoch: o.Epoch,
				Kind: o.Election, PreviousISR: t.Obs[i-1].ISR})
		}
	}
	return out
}

// nowHold describes the final read's records at offsets [first, last].
func (a *run) nowHold(f, tp int32, first, last, after int64) *judge.NowHold {
	recs := judge.FinalRecsOf(a.c, f, tp)
	lo := sort.Search(len(recs), func(i int) bool { return recs[i].Off >= first })
	hi := sort.Search(len(recs), func(i int) bool { return recs[i].Off > last })
	if lo >= hi {
		return nil
	}
	n := &judge.NowHold{FirstOffset: recs[lo].Off, LastOffset: recs[hi-1].Off, Count: hi - lo, WrittenAfterFailure: true}
	for _, r := range recs[lo:hi] {
		n.Values = append(n.Values, a.c.Vals[r.Val].Str)
		if s := a.c.Vals[r.Val].Send; s < 0 || a.c.Sends[s].Call <= after {
			n.WrittenAfterFailure = false
		}
	}
	return n
}
