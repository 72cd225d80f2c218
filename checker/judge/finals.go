package judge

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/checker/model"
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
// The log-and-order and the transaction domains judge their sends so.

// cover is how one final read stands to one value.
type cover uint8

const (
	coverBelowStart cover = iota // below the read's log start: retention
	coverLate                    // known only at or after the read's invoke
	coverAbove                   // read_committed, at or past the end it reached
	coverJudges                  // the read should hold it
)

// Judgement is what the final reads of a partition say of one value.
type Judgement uint8

const (
	JudgedHeld      Judgement = iota // every read that should hold it does, or one holds it
	JudgedLost                       // a read that should hold it lacks it
	JudgedUnseen                     // no read could judge it and none holds it
	JudgedRetention                  // every read began past it
	JudgedNoFinal                    // its partition has no completed final read
)

// SeenAt is the first observation of a value that proves it was in the
// log: where and when (the read's completion), and by what.
type SeenAt struct {
	TP  int32
	Off int64
	At  int64
	By  string
}

// Finals is the judgement of a history's completed final reads.
type Finals struct {
	h     *model.History
	inFin []uint64   // values in some completed final read of their partition
	held  []valueSet // per completed final read, the values it holds
	byTP  []tpFinals // per partition, its completed final reads for Judge
	// rcHolders are, per value, the read_committed final reads holding it
	// (indexRC, on the first HeldAtRC).
	rcHolders map[int32][]int32
	tsRU      []uint64 // txn sends some read_uncommitted final read holds
	// TsFin is, per txn send, its value's offset in the last final read
	// holding it, or -1.
	TsFin []int64
	// First observations that prove a write the ack did not: per plain
	// send, and per txn send (read_committed reads only).
	SeenPlain, SeenTxn map[int32]SeenAt
}

// NewFinals fills, for every completed final read, the set of values it
// holds, their union, each txn send's offset in the last read that holds
// it (TsFin), and the first observations that prove a write (SeenPlain,
// SeenTxn).
func NewFinals(h *model.History) *Finals {
	a := &Finals{h: h}
	c := h
	words := len(c.Vals)/64 + 1
	a.inFin = make([]uint64, words)
	a.held = make([]valueSet, len(c.Finals))
	a.TsFin = make([]int64, len(c.TxnSends))
	a.tsRU = make([]uint64, len(c.TxnSends)/64+1)
	for i := range a.TsFin {
		a.TsFin[i] = -1
	}
	// Latest-invoked first, so that TsFin takes the offset from the last
	// read that holds the value (the first occurrence within it).
	order := make([]int32, len(c.Finals))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(c.Finals[y].Call, c.Finals[x].Call) })
	var vals []int32 // one read's values, reused
	for _, f := range order {
		op := &c.Finals[f]
		vals = vals[:0]
		for j := op.Start; j < op.End; j++ {
			r := &c.Recs[j]
			s, ts := c.Writer(r.Val, r.TP, r.Off)
			switch {
			case ts >= 0:
				if c.TxnSends[ts].TP != r.TP {
					continue
				}
				if a.TsFin[ts] < 0 {
					a.TsFin[ts] = r.Off
				}
				if !op.RC {
					a.tsRU[ts/64] |= 1 << (ts % 64)
				}
			case s >= 0 && c.Sends[s].TP != r.TP:
				continue
			}
			vals = append(vals, r.Val)
			a.inFin[r.Val/64] |= 1 << (r.Val % 64)
		}
		a.held[f] = newValueSet(vals, len(c.Vals))
	}
	a.indexFinals()
	a.SeenPlain, a.SeenTxn = map[int32]SeenAt{}, map[int32]SeenAt{}
	EachRead(h, func(f string, op *model.Read, r *model.Rec) {
		s, ts := c.Writer(r.Val, r.TP, r.Off)
		switch {
		case ts >= 0:
			// Only a read_committed read proves a txn's value committed.
			if !op.RC && f != txnPoll {
				return
			}
			if c.TxnSends[ts].TP != r.TP {
				return
			}
			if t := &c.Txns[c.TxnSends[ts].Txn]; t.Typ == model.OpOK && t.Ret <= op.Ret {
				return // its commit already makes it known
			}
			noteSeen(a.SeenTxn, ts, r, op, f)
		case s >= 0:
			if sd := &c.Sends[s]; sd.TP != r.TP || (sd.Typ == model.OpOK && sd.Ret <= op.Ret) {
				return // its ack already makes it known
			}
			noteSeen(a.SeenPlain, s, r, op, f)
		}
	})
	return a
}

func noteSeen(m map[int32]SeenAt, w int32, r *model.Rec, op *model.Read, f string) {
	if old, ok := m[w]; ok && old.At <= op.Ret {
		return
	}
	m[w] = SeenAt{TP: r.TP, Off: r.Off, At: op.Ret, By: fmt.Sprintf("%s p%d", f, op.Proc)}
}

// holds reports whether completed final read f holds value val.
func (a *Finals) holds(f, val int32) bool { return a.held[f].has(val) }

// InSome reports whether some completed final read of its partition holds
// value val.
func (a *Finals) InSome(val int32) bool { return a.inFin[val/64]&(1<<(val%64)) != 0 }

// coverOf is how final read f stands to a value of tp at off, known to be
// in the log since at.
func (a *Finals) coverOf(f, tp int32, off, at int64) cover {
	op := &a.h.Finals[f]
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

// FinalAtOf returns completed final read f's record of tp at off.
func FinalAtOf(h *model.History, f, tp int32, off int64) (model.Rec, bool) {
	recs := FinalRecsOf(h, f, tp)
	i := sort.Search(len(recs), func(i int) bool { return recs[i].Off >= off })
	if i < len(recs) && recs[i].Off == off {
		return recs[i], true
	}
	return model.Rec{}, false
}

// isolation names completed final read f's isolation.
func isolation(h *model.History, f int32) string {
	if h.Finals[f].RC {
		return histories.ReadCommitted
	}
	return histories.ReadUncommitted
}

// FinalReadRef names one completed final read.
type FinalReadRef struct {
	Process   int     `json:"process"`
	InvokedS  float64 `json:"invoked_s"`
	DoneS     float64 `json:"done_s"`
	Isolation string  `json:"isolation"`
	// End is the offset it read up to on the partition (a read_committed
	// read's is the last stable offset), if it said.
	End *int64 `json:"end,omitempty"`
}

// FinalRef names completed final read f, with its end on tp.
func FinalRef(h *model.History, f, tp int32) *FinalReadRef {
	op := &h.Finals[f]
	ref := &FinalReadRef{Process: int(op.Proc), InvokedS: Secs(op.Call), DoneS: Secs(op.Ret), Isolation: isolation(h, f)}
	if end, ok := op.Ends[tp]; ok {
		ref.End = &end
	}
	return ref
}

// The names of reads in sources that are not an f of the history.
const (
	// UnfinishedFinal names a final read that ended info or fail.
	UnfinishedFinal = "unfinished final-read"
	// txnPoll names a txn's poll micro-operation.
	txnPoll = "txn poll"
)

// EachRead calls fn on every record of every completed poll and final
// read, of every unfinished final read that returned records, and of
// every txn's polls.
func EachRead(h *model.History, fn func(f string, op *model.Read, r *model.Rec)) {
	for _, set := range []struct {
		f   string
		ops []model.Read
	}{{histories.FPoll, h.Polls}, {histories.FFinalRead, h.Finals}, {UnfinishedFinal, h.Partials}, {txnPoll, h.TxnPolls}} {
		for i := range set.ops {
			op := &set.ops[i]
			for j := op.Start; j < op.End; j++ {
				fn(set.f, op, &h.Recs[j])
			}
		}
	}
}
