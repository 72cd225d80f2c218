package judge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// judgeBefore is Judge as it was before issue 36: every final read of the
// partition looked at for every value, the holdings found by scanning the
// read's records. Judge must answer as it did.
func judgeBefore(a *Finals, val, tp int32, off, at int64) (Judgement, int32) {
	h := a.h
	holds := func(f int32) bool {
		op := &h.Finals[f]
		return slices.ContainsFunc(h.Recs[op.Start:op.End], func(r model.Rec) bool { return r.Val == val })
	}
	fs := h.TPs[tp].Finals
	if len(fs) == 0 {
		return JudgedNoFinal, -1
	}
	miss := int32(-1)
	judged, couldNot := false, false
	for _, f := range fs {
		switch a.coverOf(f, tp, off, at) {
		case coverJudges:
			judged = true
			if !holds(f) && (miss < 0 || h.Finals[f].Call >= h.Finals[miss].Call) {
				miss = f
			}
		case coverLate, coverAbove:
			couldNot = true
		}
	}
	switch {
	case miss >= 0:
		return JudgedLost, miss
	case judged || slices.ContainsFunc(h.Recs, func(r model.Rec) bool { return r.Val == val }):
		return JudgedHeld, -1
	case couldNot:
		return JudgedUnseen, -1
	}
	return JudgedRetention, -1
}

// randomFinals is a history of two partitions, values 0..n-1 and up to 12
// completed final reads (some read_committed, some with log starts, ends
// and high watermarks, some invoked at the same time), each holding a
// random part of the values.
func randomFinals(rng *rand.Rand, n int) *model.History {
	h := &model.History{TPs: []*model.TP{model.NewTP("t", 0), model.NewTP("t", 1)}}
	for range n {
		h.Vals = append(h.Vals, model.Value{Send: -1, TP: -1, Txn: -1})
	}
	for f := range rng.IntN(13) {
		op := model.Read{Call: int64(rng.IntN(6)) * 10, Start: int32(len(h.Recs)), RC: rng.IntN(3) == 0,
			Starts: map[int32]int64{}, Ends: map[int32]int64{}}
		op.Ret = op.Call + 5
		tps := []int32{0, 1}[:1+rng.IntN(2)]
		for _, tp := range tps {
			if rng.IntN(3) == 0 {
				op.Starts[tp] = int64(rng.IntN(n))
			}
			if rng.IntN(2) == 0 {
				op.Ends[tp] = int64(rng.IntN(n + 1))
			}
			if op.RC && rng.IntN(2) == 0 {
				if op.TxnEnds == nil {
					op.TxnEnds = &model.FinalTxnEnds{HWs: map[int32]int64{}}
				}
				op.TxnEnds.HWs[tp] = op.Ends[tp] + int64(rng.IntN(2))
			}
			for v := range n {
				if v%2 == int(tp) && rng.IntN(3) > 0 {
					h.Recs = append(h.Recs, model.Rec{TP: tp, Off: int64(v), Val: int32(v)})
				}
			}
			h.TPs[tp].Finals = append(h.TPs[tp].Finals, int32(f))
		}
		op.End = int32(len(h.Recs))
		h.Finals = append(h.Finals, op)
	}
	return h
}

// TestJudgeAsBefore: the walk over the reads latest first, with its early
// stop and the sparse holdings, judges every value of random histories as
// the look at every read did, and names the same read.
func TestJudgeAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 3))
	for k := range 300 {
		h := randomFinals(rng, 1+rng.IntN(200))
		a := NewFinals(h)
		for v := range h.Vals {
			tp := int32(v % 2)
			for _, off := range []int64{-1, int64(v)} {
				for _, at := range []int64{-1, 0, 15, 30, 60} {
					j, miss := a.Judge(int32(v), tp, off, at)
					wj, wmiss := judgeBefore(a, int32(v), tp, off, at)
					if j != wj || miss != wmiss {
						t.Fatalf("history %d value %d off %d at %d: %v %d, want %v %d", k, v, off, at, j, miss, wj, wmiss)
					}
				}
			}
		}
	}
}

// TestFaultsBetweenAsBefore: the binary searches find the faults the scan
// over all of them found.
func TestFaultsBetweenAsBefore(t *testing.T) {
	h := &model.History{}
	for i := range 40 {
		f := histories.FKill
		if i%3 == 0 {
			f = histories.FStart
		}
		h.Nem = append(h.Nem, model.NemOp{F: f, Call: int64(i / 2)})
	}
	p := NewPlaces(h)
	for from := int64(-2); from < 24; from++ {
		for to := from - 2; to < 24; to++ {
			var want []FaultRef
			for _, i := range p.faults {
				if at := h.Nem[i].Call; at > from && at <= to {
					want = append(want, p.FaultRef(i))
				}
			}
			if len(want) > 5 {
				want = want[len(want)-5:]
			}
			got := p.FaultsBetween(from, to)
			if fmt.Sprint(got) != fmt.Sprint(want) || (got == nil) != (want == nil) {
				t.Fatalf("(%d, %d]: %v, want %v", from, to, got, want)
			}
		}
	}
}
