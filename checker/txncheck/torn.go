package txncheck

import (
	"slices"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// txnTorn finds txns seen in part, and committed txns whose values on a
// partition are out of their send order. A txn whose outcome is ok is
// judged on every send its completion lists; one whose outcome is
// unknown on the sends acked inside it, and only once a read_committed
// final read shows one of them (a read_uncommitted one also shows an
// aborted txn's records). A value is missing only from a completed final
// read invoked after the txn completed (the lost-write window).
//
// A value missing from one completed final read that should hold it is
// missing even when another final read holds it (issue 36): a later read
// holding only the first of a txn's two values on a partition shows the
// txn in part although an earlier read held both, and a read_committed
// read that lacks a value a read_uncommitted read holds shows the txn's
// records without its commit marker. The txn is torn only when another of
// its values is present (held, and missing from no read that should hold
// it): a txn absent as a whole from a later read is lost (txn-lost-write),
// not torn. Each missing value is also told apart: its commit marker is
// missing (MarkerMissing: a read_uncommitted read holds its record and
// none that should hold it lacks it) or the value itself was lost after a
// read held it (Vanished); a value no final read holds is Missing alone.
func (a *run) txnTorn() {
	c := a.c
	lastCall := make([]int64, len(c.TPs)) // per partition, its final reads' latest invoke
	for tp, t := range c.TPs {
		lastCall[tp] = -1
		for _, f := range t.Finals {
			lastCall[tp] = max(lastCall[tp], c.Finals[f].Call)
		}
	}
	for ti := range c.Txns {
		t := &c.Txns[ti]
		if (t.Typ != model.OpOK && t.Typ != model.OpInfo) || !t.Told {
			continue
		}
		var parts []TornPartition
		var byTP []int32
		var partOf map[int32]int // of a txn over many partitions: byTP's index
		committed, present, missing, disorder := t.Typ == model.OpOK, false, false, false
		lastFinal := int64(-1)
		for s := t.Start; s < t.End; s++ {
			ts := &c.TxnSends[s]
			if !ts.Done || (t.Typ == model.OpInfo && ts.Off < 0) {
				continue
			}
			k := -1
			if partOf == nil {
				k = slices.Index(byTP, ts.TP)
			} else if i, ok := partOf[ts.TP]; ok {
				k = i
			}
			tpi := c.TPs[ts.TP]
			if k < 0 {
				k = len(byTP)
				byTP = append(byTP, ts.TP)
				switch {
				case partOf != nil:
					partOf[ts.TP] = k
				case len(byTP) > 16:
					// A txn over many partitions: index them rather than
					// search them for every send.
					partOf = make(map[int32]int, len(byTP))
					for i, x := range byTP {
						partOf[x] = i
					}
				}
				tp := TornPartition{Topic: tpi.Topic, Partition: tpi.Partition}
				if tpi.Final >= 0 {
					tp.FinalReadIsolation = histories.ReadUncommitted
					if c.Finals[tpi.Final].RC {
						tp.FinalReadIsolation = histories.ReadCommitted
					}
				}
				parts = append(parts, tp)
			}
			p := &parts[k]
			off := ts.Off
			held := a.in.Finals.TsFin[s] >= 0
			if held {
				off = a.in.Finals.TsFin[s]
			}
			val := c.Vals[ts.Val].Str
			p.Values, p.Offsets = append(p.Values, val), append(p.Offsets, off)
			if tpi.Final < 0 {
				continue
			}
			lastFinal = max(lastFinal, lastCall[ts.TP])
			if _, ok := a.in.Finals.SeenTxn[s]; ok {
				committed = true // a read_committed read saw it
			}
			if held {
				committed = committed || a.heldAtRC(ts.TP, ts.Val)
			}
			switch {
			case a.txnSendMissing(s, t):
				p.Missing = append(p.Missing, val)
				missing = true
				switch {
				case a.markerMissing(s, t):
					p.MarkerMissing = append(p.MarkerMissing, val)
				case held:
					p.Vanished = append(p.Vanished, val)
				}
			case held:
				p.Present = append(p.Present, val)
				present = true
			}
		}
		if t.Typ == model.OpOK {
			for k := range parts {
				p, last := &parts[k], int64(-1)
				for _, off := range p.Offsets {
					if off < 0 {
						continue
					}
					if off <= last {
						p.OutOfOrder, disorder = true, true
					}
					last = off
				}
			}
		}
		if !(committed && present && missing) && !disorder {
			continue
		}
		at := t.Ret
		if at < 0 {
			at = t.Call
		}
		e := TxnTornEntry{Txn: a.txnRef(int32(ti)), Partitions: parts, Where: a.in.Places.Where(byTP[0], at)}
		if lastFinal > at {
			e.Faults = a.in.Places.FaultsBetween(at, lastFinal)
			e.Requests = a.in.Places.RequestsBetween(at, lastFinal)
		}
		e.Text = txnTornText(&e)
		a.out.TxnTorn = append(a.out.TxnTorn, e)
	}
}

// heldAtRC reports whether a completed read_committed final read of tp
// holds val: proof that its txn committed.
func (a *run) heldAtRC(tp, val int32) bool { return a.in.Finals.HeldAtRC(tp, val) }

// txnSendMissing reports whether txn send s of t is missing from a
// completed final read that should hold it, judged from t's completion
// (txnLost has judged the sends of committed txns and those a
// read_committed read saw).
func (a *run) txnSendMissing(s int32, t *model.Txn) bool {
	if _, ok := a.txnMissing[s]; ok {
		return true
	}
	ts := &a.c.TxnSends[s]
	if t.Ret < 0 {
		return false
	}
	j, _ := a.in.Finals.Judge(ts.Val, ts.TP, ts.Off, t.Ret)
	return j == judge.JudgedLost
}

// markerMissing reports whether missing txn send s of t has its record in
// the log without its commit marker: a completed read_uncommitted final
// read holds it, and none that should hold it lacks it (only
// read_committed reads do). Judged from where and when the value was
// known (txnLost's judgement, else t's completion).
func (a *run) markerMissing(s int32, t *model.Txn) bool {
	if !a.in.Finals.HeldUncommitted(s) {
		return false
	}
	ts := &a.c.TxnSends[s]
	off, at := ts.Off, t.Ret
	if k, ok := a.missAt[s]; ok {
		off, at = k.off, k.at
	}
	return !a.in.Finals.MissingUncommitted(ts.Val, ts.TP, off, at)
}
