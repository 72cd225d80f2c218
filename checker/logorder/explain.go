package logorder

import (
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
	// Room for every entry and range at once: a history that loses tens of
	// thousands of sends would otherwise copy them over and over.
	a.out.LostWrite = slices.Grow(a.out.LostWrite, len(a.lost))
	tps := slices.Sorted(maps.Keys(byTP))
	ranges := make([][][]lostItem, len(tps))
	n := 0
	for i, tp := range tps {
		ranges[i] = a.lostRanges(tp, byTP[tp])
		n += len(ranges[i])
	}
	a.expl = slices.Grow(a.expl, n)
	for i, tp := range tps {
		for _, rng := range ranges[i] {
			a.explainLost(tp, rng)
		}
	}
	a.explainReuse()
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
		for i := obsAfter(t, firstAck); i < len(t.Obs); i++ {
			if o := &t.Obs[i]; o.Epoch > ackEpoch && o.Leader >= 0 {
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
	e.RequestsAfter = a.in.Places.RequestsBetween(firstAck, end)
	e.Elections = elections(t, firstAck, end)
	e.NowHold = a.nowHold(by, tp, e.FirstOffset, e.LastOffset, lastAck)
	if fin := c.Finals[by]; fin.Ends != nil {
		if endOff, ok := fin.Ends[tp]; ok && endOff <= e.LastOffset {
			e.LogEnd = &endOff
		}
	}
	e.Text = lostText(t.Name(), &e) + requestsText(&e)
	idx := len(a.expl)
	a.expl = append(a.expl, e)
	for _, it := range items {
		op := &c.Sends[it.send]
		le := LostWriteEntry{Topic: t.Topic, Partition: t.Partition, Offset: it.off, Value: c.Vals[op.Val].Str,
			Process: int(op.Proc), InvokedS: judge.Secs(op.Call), AckedS: judge.Secs(it.ack), AtAck: a.in.Places.Where(tp, it.ack),
			Range: idx, Faults: e.FaultsAfter, Requests: e.RequestsAfter}
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

// obsAfter is the index of t's first observer sample after at: the
// samples are in time order, so that each lost range looks only at those
// after its acks rather than at all of them.
func obsAfter(t *model.TP, at int64) int {
	return sort.Search(len(t.Obs), func(i int) bool { return t.Obs[i].At > at })
}

// elections returns the epoch rises observed in (from, to], at most 5.
func elections(t *model.TP, from, to int64) []judge.Election {
	var out []judge.Election
	for i := obsAfter(t, from); i < len(t.Obs) && t.Obs[i].At <= to && len(out) < 5; i++ {
		if o := &t.Obs[i]; o.Election != "" {
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
