package logorder

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/checker/txncheck"
)

// lostAndUnseen finds the sends missing from a completed final read that
// should hold them (a.lost, with the read in a.lostBy; explain makes their
// entries, knowing their ranges) and, where no read could judge them,
// those no read holds (unseen). A send acked with an offset is known from
// its ack; any other send whose value a read observed, from that read
// (finals.go).
func (a *run) lostAndUnseen() {
	c := a.c
	a.lostBy, a.lostSeen = map[int32]int32{}, map[int32]judge.SeenAt{}
	for i := range c.Sends {
		s := &c.Sends[i]
		seen, wasSeen := a.seenPlain[int32(i)]
		off, at := s.Off, s.Ret
		switch {
		case s.Typ == model.OpOK:
			if wasSeen && seen.At < at {
				at = seen.At
			}
		case wasSeen:
			off, at = seen.Off, seen.At
		default:
			continue
		}
		t := c.TPs[s.TP]
		j, miss := a.in.Finals.Judge(s.Val, s.TP, off, at)
		switch {
		case j == judge.JudgedLost:
			a.lost = append(a.lost, int32(i))
			a.lostBy[int32(i)] = miss
			if s.Typ != model.OpOK {
				a.lostSeen[int32(i)] = seen
			}
		case s.Typ != model.OpOK:
		case j == judge.JudgedUnseen, j == judge.JudgedNoFinal && !c.Vals[s.Val].Polled:
			// Acked once every final read was under way (or after it), or
			// on a partition without one and never polled: absence proves
			// nothing. Unseen, not lost.
			a.out.Unseen = append(a.out.Unseen, judge.SendEntry{
				Topic: t.Topic, Partition: t.Partition, Value: c.Vals[s.Val].Str, Offset: s.Off,
				Process: int(s.Proc), AckedS: judge.Secs(s.Ret), AtAck: a.in.Places.Where(s.TP, s.Ret)})
		}
	}
}

// reuse finds offsets that held more than one value, with who saw each.
func (a *run) reuse() {
	c := a.c
	idx := map[model.TPOff]*OffsetReuseEntry{}
	// (partition, offset, value) -> its place in the entry's Values. The
	// partition is in the key: two partitions may reuse one offset with
	// one value (a value re-sent to another partition), each in its own
	// entry (found by FuzzHistory; testdata/fuzz/FuzzHistory/e65541d671ebee03).
	type tpOffVal struct {
		tp  int32
		off int64
		val int32
	}
	pos := map[tpOffVal]int{}
	var entries []*OffsetReuseEntry
	for tp, t := range c.TPs {
		for _, off := range t.Offs.Reused() {
			e := &OffsetReuseEntry{Topic: t.Topic, Partition: t.Partition, Offset: off}
			for i, v := range t.Offs.Values(off) {
				e.Values = append(e.Values, Observed{Value: c.Vals[v].Str, FirstS: math.Inf(1)})
				pos[tpOffVal{int32(tp), off, v}] = i
			}
			idx[model.TPOff{TP: int32(tp), Off: off}] = e
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return
	}
	see := func(tp int32, off int64, val int32, at int64, src string, epoch *int32) {
		e := idx[model.TPOff{TP: tp, Off: off}]
		if e == nil {
			return
		}
		if i, ok := pos[tpOffVal{tp, off, val}]; ok {
			o := &e.Values[i]
			o.FirstS = min(o.FirstS, judge.Secs(at))
			if len(o.Sources) < 6 {
				o.Sources = append(o.Sources, src)
			}
			if epoch != nil && !slices.Contains(o.LeaderEpochs, *epoch) {
				o.LeaderEpochs = append(o.LeaderEpochs, *epoch)
				if st := c.TPs[tp].EpochStart(*epoch); st != nil && !slices.Contains(o.Leaders, st.Leader) {
					o.Leaders = append(o.Leaders, st.Leader)
				}
			}
			if s, ts := c.Writer(val, tp, off); o.Send == "" && s >= 0 {
				o.Send = a.sendWords(s)
			} else if o.Send == "" && ts >= 0 {
				o.Send = txncheck.Words(c, ts)
			}
		}
	}
	for i := range c.Sends {
		if s := &c.Sends[i]; s.Typ == model.OpOK {
			see(s.TP, s.Off, s.Val, s.Ret, fmt.Sprintf("send p%d acked at %.1f s", s.Proc, judge.Secs(s.Ret)), nil)
		}
	}
	for i := range c.TxnSends {
		if s := &c.TxnSends[i]; s.Off >= 0 {
			t := &c.Txns[s.Txn]
			see(s.TP, s.Off, s.Val, max(t.Ret, t.Call), fmt.Sprintf("txn %q p%d acked inside it", c.TxnIDs.List[t.ID], t.Proc), nil)
		}
	}
	judge.EachRead(a.c, func(f string, op *model.Read, r *model.Rec) {
		epoch := r.Epoch
		see(r.TP, r.Off, r.Val, op.Ret, fmt.Sprintf("%s p%d at %.1f s", f, op.Proc, judge.Secs(op.Ret)), &epoch)
	})
	for _, e := range entries {
		for i := range e.Values {
			if len(e.Values[i].Sources) == 6 {
				e.Values[i].Sources[5] = "..."
			}
			if math.IsInf(e.Values[i].FirstS, 1) {
				e.Values[i].FirstS = 0
			}
		}
		slices.SortStableFunc(e.Values, func(x, y Observed) int { return cmp.Compare(x.FirstS, y.FirstS) })
		a.out.OffsetReuse = append(a.out.OffsetReuse, *e)
	}
}

func (a *run) sendWords(s int32) string {
	op, err := &a.c.Sends[s], a.c.SendErr[s]
	switch op.Typ {
	case model.OpOK:
		return fmt.Sprintf("acked at offset %d (p%d, %.1f s)", op.Off, op.Proc, judge.Secs(op.Ret))
	case model.OpOKNoOffset:
		return fmt.Sprintf("ok without offset (acks=0, p%d)", op.Proc)
	case model.OpFail:
		return fmt.Sprintf("failed %s (p%d, %.1f s)", err, op.Proc, judge.Secs(op.Ret))
	}
	if err != "" {
		return fmt.Sprintf("unknown outcome: %s (p%d)", err, op.Proc)
	}
	return fmt.Sprintf("unknown outcome (p%d)", op.Proc)
}

func (a *run) sendRef(s int32) *SendRef {
	op := &a.c.Sends[s]
	ref := &SendRef{Process: int(op.Proc), Error: a.c.SendErr[s], InvokedS: judge.Secs(op.Call)}
	if op.Ret >= 0 {
		ref.DoneS = judge.Secs(op.Ret)
	}
	ref.Type = model.Outcome(op.Typ)
	if op.Typ == model.OpOK {
		off := op.Off
		ref.Offset = &off
	}
	return ref
}
