package logorder

import (
	"cmp"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/checker/txncheck"
)

// values finds duplicate, aborted-read and unexpected values.
func (a *run) values() {
	c := a.c
	type kinds struct{ dup, txnDup, aborted, unexpected bool }
	want := map[int32]kinds{}
	for v := range c.Vals {
		vi := &c.Vals[v]
		k := kinds{dup: len(c.DupAt[int32(v)]) > 0}
		if k.dup && vi.Send < 0 && vi.Txn >= 0 {
			// Only txns sent it: transactional producers are
			// idempotent, and exactly-once promises no duplicates.
			k.dup, k.txnDup = false, true
		}
		if vi.Read {
			k.unexpected = vi.Send < 0 && vi.Txn < 0
			if !k.unexpected {
				// Each place the value was seen is explained by its best
				// send there: aborted if that send failed definitely (a
				// txn's value is judged by the txn checks).
				failed := func(tp int32, off int64) bool {
					s, _ := c.Writer(int32(v), tp, off)
					return s >= 0 && c.Sends[s].Typ == model.OpFail
				}
				k.aborted = failed(vi.TP, vi.Off)
				for _, o := range c.DupAt[int32(v)] {
					k.aborted = k.aborted || failed(o.TP, o.Off)
				}
			}
		}
		if k.dup || k.txnDup || k.aborted || k.unexpected {
			want[int32(v)] = k
		}
	}
	if len(want) == 0 {
		return
	}
	seen := map[int32]*judge.ValueSeen{}
	judge.EachRead(a.c, func(f string, op *model.Read, r *model.Rec) {
		if _, ok := want[r.Val]; !ok {
			return
		}
		s := seen[r.Val]
		if s == nil {
			vs := judge.NewValueSeen(op)
			s = &vs
			seen[r.Val] = s
		}
		s.Note(f, op, r)
	})
	vals := make([]int32, 0, len(want))
	for v := range want {
		vals = append(vals, v)
	}
	slices.SortFunc(vals, func(x, y int32) int {
		return cmp.Or(cmp.Compare(c.Vals[x].TP, c.Vals[y].TP), cmp.Compare(c.Vals[x].Off, c.Vals[y].Off), cmp.Compare(x, y))
	})
	for _, v := range vals {
		vi, k := &c.Vals[v], want[v]
		s := seen[v]
		if s == nil {
			s = &judge.ValueSeen{First: -1}
		}
		tp := vi.TP
		at := s.First
		var ref *SendRef
		if s := c.Explainer(v, vi.TP, vi.Off); s >= 0 {
			tp, ref = c.Sends[s].TP, a.sendRef(s)
			if at < 0 {
				at = c.Sends[s].Ret
			}
		}
		t := c.TPs[tp]
		e := ValueEntry{Topic: t.Topic, Partition: t.Partition, Value: vi.Str, Offsets: s.Offsets,
			LeaderEpochs: s.Epochs, ReadBy: s.ReadBy, Send: ref, Where: a.in.Places.Where(tp, at)}
		if k.txnDup {
			offs := []int64{vi.Off}
			for _, o := range c.DupAt[v] {
				offs = append(offs, o.Off)
			}
			_, ts := c.Writer(v, vi.TP, vi.Off)
			if ts < 0 {
				ts = vi.Txn
			}
			seen := *s
			seen.Offsets = offs
			a.txnDup = append(a.txnDup, txncheck.ValueEntry(a.in, v, ts, &seen, txncheck.TxnDuplicate))
		}
		if k.dup {
			d := e
			d.Offsets = []int64{vi.Off}
			for _, o := range c.DupAt[v] {
				d.Offsets = append(d.Offsets, o.Off)
			}
			slices.Sort(d.Offsets)
			a.out.Duplicate = append(a.out.Duplicate, d)
		}
		if k.aborted {
			a.out.AbortedRead = append(a.out.AbortedRead, e)
		}
		if k.unexpected {
			a.out.Unexpected = append(a.out.Unexpected, e)
		}
	}
}

// sendOrder reports each process's ok sends that went back on a partition.
func (a *run) sendOrder() {
	c := a.c
	for _, n := range c.NonmonotonicSends {
		prev, next := &c.Sends[n.Prev], &c.Sends[n.Next]
		t := c.TPs[next.TP]
		a.out.NonmonotonicSend = append(a.out.NonmonotonicSend, NonmonotonicSendEntry{
			Topic: t.Topic, Partition: t.Partition, Process: int(next.Proc),
			Value: c.Vals[next.Val].Str, Offset: next.Off, AckedS: judge.Secs(next.Ret),
			PrevValue: c.Vals[prev.Val].Str, PrevOffset: prev.Off, PrevAckedS: judge.Secs(prev.Ret),
			Where: a.in.Places.Where(next.TP, next.Ret)})
	}
}

// pollOrder reports polls that went back (nonmonotonic-poll) and polls that
// skipped offsets the final read shows exist (poll-skip). A skip on a
// partition without a completed final read cannot be told from a gap in
// the log, so it is not reported.
func (a *run) pollOrder() {
	c := a.c
	entry := func(g model.PollGap) PollEntry {
		t := c.TPs[g.TP]
		return PollEntry{Topic: t.Topic, Partition: t.Partition, Process: int(g.Proc), AtS: judge.Secs(g.At),
			PrevOffset: g.PrevLast, PrevValue: c.Vals[g.PrevVal].Str, Offset: g.First,
			Value: c.Vals[g.FirstVal].Str, Where: a.in.Places.Where(g.TP, g.At)}
	}
	for _, g := range c.PollBacks {
		a.out.NonmonotonicPoll = append(a.out.NonmonotonicPoll, entry(g))
	}
	for _, g := range c.PollGaps {
		recs := judge.FinalRecs(a.c, g.TP)
		lo := sort.Search(len(recs), func(i int) bool { return recs[i].Off > g.PrevLast })
		hi := sort.Search(len(recs), func(i int) bool { return recs[i].Off >= g.First })
		if g.RC {
			// A read_committed reader skips aborted and open txns' records
			// (and markers, which take offsets and are never read): only a
			// record it should have seen makes a skip.
			recs = slices.DeleteFunc(slices.Clone(recs[lo:hi]), func(r model.Rec) bool { return !c.CommittedVisible(r.Val, r.TP, r.Off) })
			lo, hi = 0, len(recs)
		}
		if lo >= hi {
			continue
		}
		e := entry(g)
		e.Skipped = hi - lo
		for _, r := range recs[lo:min(hi, lo+judge.MaxListed)] {
			e.SkippedOffsets = append(e.SkippedOffsets, r.Off)
			e.SkippedValues = append(e.SkippedValues, c.Vals[r.Val].Str)
		}
		a.out.PollSkip = append(a.out.PollSkip, e)
	}
}
