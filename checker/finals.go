package checker

import (
	"cmp"
	"fmt"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/histories"
)

// Every completed final read is evidence (docs/HISTORY.md, "What a final
// read proves"). A value is judged by each completed final read of its
// partition that should hold it, not by the one invoked last alone, so
// that the verdict never depends on the order in which final reads ran:
//
//   - a read_uncommitted final read should hold every value of its
//     partition known to be in the log strictly before the read was
//     invoked, at or above the log start it reports;
//   - a read_committed one should hold those below the end it reports
//     (the last stable offset), if they are committed (a plain send's
//     value, a committed txn's).
//
// A value is known to be in the log from its ack (a plain send acked with
// an offset; a committed txn's send, from the txn's commit), or from the
// first read that observed it (Jepsen's rule: what a reader saw was
// written; a txn's value counts as observed only by a read_committed
// read, which proves its txn committed). A value missing from any read
// that should hold it is lost; the entry names the read invoked last that
// lacks it. A value no read should hold (acked during or after every read,
// or above every read_committed end) is unseen unless some read holds it.

// cover is how one final read stands to one value.
type cover uint8

const (
	coverBelowStart cover = iota // below the read's log start: retention
	coverLate                    // known only at or after the read's invoke
	coverAbove                   // read_committed, at or past the end it reached
	coverJudges                  // the read should hold it
)

// judgement is what the final reads of a partition say of one value.
type judgement uint8

const (
	judgedHeld      judgement = iota // every read that should hold it does, or one holds it
	judgedLost                       // a read that should hold it lacks it
	judgedUnseen                     // no read could judge it and none holds it
	judgedRetention                  // every read began past it
	judgedNoFinal                    // its partition has no completed final read
)

// seenAt is the first observation of a value that proves it was in the
// log: where and when (the read's completion), and by what.
type seenAt struct {
	tp  int32
	off int64
	at  int64
	by  string
}

// prepareFinals fills, for every completed final read, the set of values
// it holds (a.held), their union (a.inFin), each txn send's offset in the
// last read that holds it (a.tsFin), and the first observations that
// prove a write (a.seenPlain, a.seenTxn).
func (a *analysis) prepareFinals() {
	c := a.c
	words := len(c.Vals)/64 + 1
	a.inFin = make([]uint64, words)
	a.held = make([][]uint64, len(c.Finals))
	a.tsFin = make([]int64, len(c.txnSends))
	for i := range a.tsFin {
		a.tsFin[i] = -1
	}
	// Latest-invoked first, so that tsFin takes the offset from the last
	// read that holds the value (the first occurrence within it).
	order := make([]int32, len(c.Finals))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(c.Finals[y].Call, c.Finals[x].Call) })
	for _, f := range order {
		op := &c.Finals[f]
		set := make([]uint64, words)
		for j := op.Start; j < op.End; j++ {
			r := &c.Recs[j]
			s, ts := c.writer(r.Val, r.TP, r.Off)
			switch {
			case ts >= 0:
				if c.txnSends[ts].tp != r.TP {
					continue
				}
				if a.tsFin[ts] < 0 {
					a.tsFin[ts] = r.Off
				}
			case s >= 0 && c.Sends[s].TP != r.TP:
				continue
			}
			set[r.Val/64] |= 1 << (r.Val % 64)
		}
		a.held[f] = set
		for w := range set {
			a.inFin[w] |= set[w]
		}
	}
	a.seenPlain, a.seenTxn = map[int32]seenAt{}, map[int32]seenAt{}
	a.eachRead(func(f string, op *model.Read, r *rec) {
		s, ts := c.writer(r.Val, r.TP, r.Off)
		switch {
		case ts >= 0:
			// Only a read_committed read proves a txn's value committed.
			if !op.RC && f != txnPoll {
				return
			}
			if c.txnSends[ts].tp != r.TP {
				return
			}
			if t := &c.txns[c.txnSends[ts].txn]; t.typ == model.OpOK && t.ret <= op.Ret {
				return // its commit already makes it known
			}
			a.noteSeen(a.seenTxn, ts, r, op, f)
		case s >= 0:
			if sd := &c.Sends[s]; sd.TP != r.TP || (sd.Typ == model.OpOK && sd.Ret <= op.Ret) {
				return // its ack already makes it known
			}
			a.noteSeen(a.seenPlain, s, r, op, f)
		}
	})
}

func (a *analysis) noteSeen(m map[int32]seenAt, w int32, r *rec, op *model.Read, f string) {
	if old, ok := m[w]; ok && old.at <= op.Ret {
		return
	}
	m[w] = seenAt{tp: r.TP, off: r.Off, at: op.Ret, by: fmt.Sprintf("%s p%d", f, op.Proc)}
}

// holds reports whether completed final read f holds value val.
func (a *analysis) holds(f, val int32) bool { return a.held[f][val/64]&(1<<(val%64)) != 0 }

// coverOf is how final read f stands to a value of tp at off, known to be
// in the log since at.
func (a *analysis) coverOf(f, tp int32, off, at int64) cover {
	op := &a.c.Finals[f]
	switch {
	case off >= 0 && off < op.Starts[tp]:
		return coverBelowStart
	case at >= op.Call:
		return coverLate
	case op.RC:
		end, ok := op.Ends[tp]
		if ok && off >= 0 && off < end {
			return coverJudges
		}
		// At or past its end (the last stable offset): the read judges it
		// only when it recorded that nothing was held back there, its high
		// watermark equal to its end (then the value is past the end of the
		// log, as for a read_uncommitted read). Without the high watermark
		// it cannot tell a lost record from one an open txn holds back.
		if hw, has := op.HW(tp); ok && has && hw == end {
			return coverJudges
		}
		return coverAbove
	}
	return coverJudges
}

// judge is what the completed final reads of tp say of value val at off,
// known since at; on judgedLost, miss is the read invoked last among those
// that should hold it and lack it.
func (a *analysis) judge(val, tp int32, off, at int64) (j judgement, miss int32) {
	fs := a.c.TPs[tp].Finals
	if len(fs) == 0 {
		return judgedNoFinal, -1
	}
	miss = -1
	judged, couldNot := false, false
	for _, f := range fs {
		switch a.coverOf(f, tp, off, at) {
		case coverJudges:
			judged = true
			if !a.holds(f, val) && (miss < 0 || a.c.Finals[f].Call >= a.c.Finals[miss].Call) {
				miss = f
			}
		case coverLate, coverAbove:
			couldNot = true
		}
	}
	switch {
	case miss >= 0:
		return judgedLost, miss
	case judged || a.inFin[val/64]&(1<<(val%64)) != 0:
		return judgedHeld, -1
	case couldNot:
		return judgedUnseen, -1
	}
	return judgedRetention, -1
}

// finalRecsOf returns the records of tp in completed final read f, by
// offset.
func (a *analysis) finalRecsOf(f, tp int32) []rec { return judge.FinalRecsOf(&a.c.History, f, tp) }

// finalAtOf returns final read f's record of tp at off.
func (a *analysis) finalAtOf(f, tp int32, off int64) (rec, bool) {
	recs := a.finalRecsOf(f, tp)
	i := sort.Search(len(recs), func(i int) bool { return recs[i].Off >= off })
	if i < len(recs) && recs[i].Off == off {
		return recs[i], true
	}
	return rec{}, false
}

// isolationOf names a final read's isolation.
func (a *analysis) isolationOf(f int32) string {
	if a.c.Finals[f].RC {
		return histories.ReadCommitted
	}
	return histories.ReadUncommitted
}

// finalRef names completed final read f, with its end on tp.
func (a *analysis) finalRef(f, tp int32) *FinalReadRef {
	op := &a.c.Finals[f]
	ref := &FinalReadRef{Process: int(op.Proc), InvokedS: secs(op.Call), DoneS: secs(op.Ret), Isolation: a.isolationOf(f)}
	if end, ok := op.Ends[tp]; ok {
		ref.End = &end
	}
	return ref
}
