package txncheck

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// The transaction checks (docs/HISTORY.md, "Transactions: what the
// checker proves"). A txn's outcome decides what its values may do: an ok
// txn committed, so every value it sent is in the log, at most once, in
// its send order per partition, and visible to read_committed readers
// once it committed; a fail txn did not commit, so no read_committed
// reader may see its values (a read_uncommitted one may: aborted records
// are in the log); an info txn did either, all or nothing.

func (a *run) txnRef(t int32) TxnRef {
	c := a.c
	op := &c.Txns[t]
	ref := TxnRef{TransactionalID: c.TxnIDs.List[op.ID], Index: op.Index, Process: int(op.Proc), Error: c.TxnErr[t],
		InvokedS: judge.Secs(op.Call)}
	if op.Ret >= 0 {
		ref.DoneS = judge.Secs(op.Ret)
	}
	if op.EndInv >= 0 {
		s := judge.Secs(op.EndInv)
		ref.EndInvokedS = &s
	}
	ref.Type = model.Outcome(op.Typ)
	return ref
}

// txnWords describes the txn of a txn send, for offset-reuse sources.
func (a *run) txnWords(ts int32) string {
	r := a.txnRef(a.c.TxnSends[ts].Txn)
	s := fmt.Sprintf("txn %q (index %d, p%d) %s", r.TransactionalID, r.Index, r.Process, r.Type)
	if r.Error != "" {
		s += " " + r.Error
	}
	return s
}

// txnChecks runs the transaction checks (the final reads are judged:
// in.Finals).
func (a *run) txnChecks() {
	a.txnHanging() // a partition may hold another client's txn open
	if len(a.c.Txns) == 0 {
		return
	}
	a.txnReads()
	a.txnLost()
	a.txnTorn()
	a.txnCycles()
}

// txnRead gathers the read_committed reads of one value that offend.
type txnRead struct {
	ts int32
	judge.ValueSeen
}

// txnReads finds the read_committed reads of values of failed txns
// (txn-aborted-read) and of values read before their txn could have
// committed (txn-uncommitted-read). A failed txn's value is the first
// only: it never committed at all.
func (a *run) txnReads() {
	c := a.c
	aborted, early := map[int32]*txnRead{}, map[int32]*txnRead{}
	add := func(m map[int32]*txnRead, ts int32, by string, op *model.Read, r *model.Rec) {
		s := m[r.Val]
		if s == nil {
			s = &txnRead{ts: ts, ValueSeen: judge.NewValueSeen(op)}
			m[r.Val] = s
		}
		s.Note(by, op, r)
	}
	// check judges one record of a read_committed read; reader is the txn
	// whose poll it was, or -1.
	check := func(by string, op *model.Read, reader int32, r *model.Rec) {
		_, ts := c.Writer(r.Val, r.TP, r.Off)
		if ts < 0 {
			return
		}
		w := c.TxnSends[ts].Txn
		wt := &c.Txns[w]
		switch {
		case wt.Typ == model.OpFail:
			add(aborted, ts, by, op, r)
		case reader == w:
			// A txn's poll precedes its own EndTxn: its own writes were
			// not committed yet (Jepsen's precommitted read).
			add(early, ts, by, op, r)
		default:
			done := op.Ret
			if reader >= 0 {
				if rt := &c.Txns[reader]; rt.EndInv >= 0 {
					done = rt.EndInv // its polls came before it asked to end
				}
			}
			bound := wt.Call // before the txn began: always sound
			if wt.EndInv >= 0 {
				bound = wt.EndInv
			}
			if done < bound {
				add(early, ts, by, op, r)
			}
		}
	}
	for _, set := range []struct {
		f   string
		ops []model.Read
	}{{histories.FPoll, c.Polls}, {histories.FFinalRead, c.Finals}, {judge.UnfinishedFinal, c.Partials}} {
		for i := range set.ops {
			if op := &set.ops[i]; op.RC {
				for j := op.Start; j < op.End; j++ {
					check(set.f+" (read_committed)", op, -1, &c.Recs[j])
				}
			}
		}
	}
	for i := range c.TxnPolls {
		op, reader := &c.TxnPolls[i], c.TxnPollOf[i]
		by := fmt.Sprintf("txn %q (index %d) poll", c.TxnIDs.List[c.Txns[reader].ID], c.Txns[reader].Index)
		for j := op.Start; j < op.End; j++ {
			check(by, op, reader, &c.Recs[j])
		}
	}
	a.out.TxnAbortedRead = a.txnValueEntries(aborted, TxnAbortedRead)
	a.out.TxnUncommittedRead = a.txnValueEntries(early, TxnUncommittedRead)
}

// txnValueEntries makes the entries of one kind, in the order of their
// values' first sighting (partition, offset), then value number.
func (a *run) txnValueEntries(m map[int32]*txnRead, kind string) []TxnValueEntry {
	c := a.c
	vals := make([]int32, 0, len(m))
	for v := range m {
		vals = append(vals, v)
	}
	slices.SortFunc(vals, func(x, y int32) int {
		return cmp.Or(cmp.Compare(c.Vals[x].TP, c.Vals[y].TP), cmp.Compare(c.Vals[x].Off, c.Vals[y].Off), cmp.Compare(x, y))
	})
	var out []TxnValueEntry
	for _, v := range vals {
		s := m[v]
		out = append(out, a.txnValueEntry(v, s.ts, &s.ValueSeen, kind))
	}
	return out
}

func (a *run) txnValueEntry(v, ts int32, s *judge.ValueSeen, kind string) TxnValueEntry {
	c := a.c
	snd := &c.TxnSends[ts]
	t := c.TPs[snd.TP]
	at := s.First
	if at < 0 {
		at = max(c.Txns[snd.Txn].Ret, c.Txns[snd.Txn].Call)
	}
	offs := append([]int64(nil), s.Offsets...)
	slices.Sort(offs)
	e := TxnValueEntry{Topic: t.Topic, Partition: t.Partition, Value: c.Vals[v].Str, Offsets: offs,
		LeaderEpochs: s.Epochs, ReadBy: s.ReadBy, Txn: a.txnRef(snd.Txn), Where: a.in.Places.Where(snd.TP, at)}
	e.Text = txnValueText(kind, t.Name(), &e)
	return e
}

// txnLost finds the values of committed txns missing from a completed
// final read that should hold them (judge.Finals): a committed txn's send is
// known from its commit; the value of a txn whose outcome is not ok, from
// the first read_committed read that saw it (it committed, or the reader
// could not have seen it). A value no read could judge is unseen, and on
// a partition without a completed final read, unseen unless some poll saw
// it.
func (a *run) txnLost() {
	c := a.c
	a.txnMissing, a.missAt = map[int32]int32{}, map[int32]known{}
	for ti := range c.Txns {
		t := &c.Txns[ti]
		for s := t.Start; s < t.End; s++ {
			ts := &c.TxnSends[s]
			off, at := ts.Off, t.Ret
			seen, wasSeen := a.in.Finals.SeenTxn[s]
			switch {
			case t.Typ == model.OpOK && wasSeen && seen.At < at:
				at = seen.At
			case t.Typ == model.OpOK:
			case wasSeen:
				off, at = seen.Off, seen.At
			default:
				continue
			}
			if off < 0 {
				if !wasSeen {
					continue
				}
				off = seen.Off
			}
			tpi := c.TPs[ts.TP]
			j, miss := a.in.Finals.Judge(ts.Val, ts.TP, off, at)
			switch j {
			case judge.JudgedUnseen, judge.JudgedNoFinal:
				if j == judge.JudgedNoFinal && c.Vals[ts.Val].Polled {
					continue
				}
				a.unseen = append(a.unseen, judge.SendEntry{Topic: tpi.Topic, Partition: tpi.Partition,
					Value: c.Vals[ts.Val].Str, Offset: off, Process: int(t.Proc), AckedS: judge.Secs(at), AtAck: a.in.Places.Where(ts.TP, at),
					TransactionalID: c.TxnIDs.List[t.ID]})
				continue
			case judge.JudgedLost:
			default:
				continue
			}
			a.txnMissing[s], a.missAt[s] = miss, known{off, at}
			f := &c.Finals[miss]
			e := TxnLostWriteEntry{Topic: tpi.Topic, Partition: tpi.Partition, Offset: off, Value: c.Vals[ts.Val].Str,
				Txn: a.txnRef(int32(ti)), AtCommit: a.in.Places.Where(ts.TP, at)}
			if wasSeen && t.Typ != model.OpOK {
				sa := judge.Secs(seen.At)
				e.SeenS, e.SeenBy = &sa, seen.By
			}
			if miss != tpi.Final {
				e.JudgedBy = judge.FinalRef(a.c, miss, ts.TP)
			}
			if r, ok := judge.FinalAtOf(a.c, miss, ts.TP, off); ok {
				e.Now = &judge.Held{Value: c.Vals[r.Val].Str, LeaderEpoch: r.Epoch}
			}
			e.Faults = a.in.Places.FaultsBetween(at, f.Call)
			e.Requests = a.in.Places.RequestsBetween(at, f.Call)
			if o := tpi.At(f.Call); o != nil {
				epoch := o.Epoch
				e.FinalEpoch = &epoch
			}
			e.Text = txnLostText(tpi.Name(), &e)
			a.out.TxnLostWrite = append(a.out.TxnLostWrite, e)
		}
	}
}

// explainTxns adds an Explanation for each txn anomaly entry, after the
// lost-write and offset-reuse ranges (whose indexes entries refer to).
func (a *run) explainTxns() {
	an := a.out
	add := func(kind, topic string, p int32, offs []int64, vals []string, f *judge.FaultRef, text string) {
		e := judge.Explanation{Kind: kind, Topic: topic, Partition: p, Count: 1, Offsets: offs, Values: vals, FaultBefore: f, Text: text}
		if len(offs) > 0 {
			e.FirstOffset, e.LastOffset = slices.Min(offs), slices.Max(offs)
		}
		a.expl = append(a.expl, e)
	}
	for _, e := range an.TxnLostWrite {
		add(TxnLostWrite, e.Topic, e.Partition, []int64{e.Offset}, []string{e.Value}, e.AtCommit.LastFault, e.Text)
	}
	for _, list := range []struct {
		kind string
		es   []TxnValueEntry
	}{{TxnAbortedRead, an.TxnAbortedRead}, {TxnUncommittedRead, an.TxnUncommittedRead}, {TxnDuplicate, an.TxnDuplicate}} {
		for _, e := range list.es {
			add(list.kind, e.Topic, e.Partition, e.Offsets, []string{e.Value}, e.Where.LastFault, e.Text)
		}
	}
	for _, e := range an.TxnHanging {
		var offs []int64
		if e.HeldBack.Count > 0 {
			offs = []int64{e.HeldBack.FirstOffset, e.HeldBack.LastOffset}
		}
		var f *judge.FaultRef
		if len(e.Faults) > 0 {
			f = &e.Faults[len(e.Faults)-1]
		}
		add(TxnHanging, e.Topic, e.Partition, offs, e.HeldBack.Values, f, e.Text)
	}
	for _, e := range an.TxnTorn {
		p := e.Partitions[0]
		add(TxnTorn, p.Topic, p.Partition, nil, p.Values, e.Where.LastFault, e.Text)
	}
	for _, list := range []struct {
		kind string
		es   []CycleEntry
	}{{G0, an.G0}, {G1c, an.G1c}} {
		for _, e := range list.es {
			s := e.Steps[0]
			add(list.kind, s.Topic, s.Partition, s.Offsets, s.Values, e.Where.LastFault, e.Text)
		}
	}
}
