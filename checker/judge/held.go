package judge

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
)

// What the final reads hold, kept so that judging every value stays
// near-linear in values, records and reads (issue 36: a history with
// many final reads once cost one bitset over all values per read, and
// one look at every read of the partition per value).

// valueSet is the values one completed final read holds: a bitset over
// all the history's values when it holds at least one value per 64 (then
// the bitset is no bigger than a list), else the sorted list, so that a
// history of many small final reads does not cost reads times values.
type valueSet struct {
	bits []uint64
	vals []int32
}

// newValueSet keeps vals (in any order, repeats allowed) among n values.
func newValueSet(vals []int32, n int) valueSet {
	words := n/64 + 1
	if len(vals) >= words {
		bits := make([]uint64, words)
		for _, v := range vals {
			bits[v/64] |= 1 << (v % 64)
		}
		return valueSet{bits: bits}
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	return valueSet{vals: slices.Compact(s)}
}

func (s *valueSet) has(v int32) bool {
	if s.bits != nil {
		return s.bits[v/64]&(1<<(v%64)) != 0
	}
	_, ok := slices.BinarySearch(s.vals, v)
	return ok
}

// tpFinals orders the completed final reads of one partition for Judge.
type tpFinals struct {
	// byCall: latest invoked first; of two invoked at once, the later in
	// TP.Finals first (Judge names the read invoked last that lacks a
	// value, the later of two such).
	byCall []int32
	// minStart[i] is the lowest log start on the partition among
	// byCall[i:]: whether one of the reads invoked at or before a value
	// was known begins at or below it (it could not judge the value,
	// which leaves it unseen rather than gone to retention).
	minStart []int64
}

// indexFinals orders every partition's completed final reads (byTP).
func (a *Finals) indexFinals() {
	h := a.h
	a.byTP = make([]tpFinals, len(h.TPs))
	for tp, t := range h.TPs {
		fs := slices.Clone(t.Finals)
		pos := make(map[int32]int, len(fs))
		for i, f := range fs {
			pos[f] = i
		}
		slices.SortFunc(fs, func(x, y int32) int {
			return cmp.Or(cmp.Compare(h.Finals[y].Call, h.Finals[x].Call), cmp.Compare(pos[y], pos[x]))
		})
		ms := make([]int64, len(fs))
		for i := len(fs) - 1; i >= 0; i-- {
			ms[i] = h.Finals[fs[i]].Starts[int32(tp)]
			if i+1 < len(fs) {
				ms[i] = min(ms[i], ms[i+1])
			}
		}
		a.byTP[tp] = tpFinals{byCall: fs, minStart: ms}
	}
}

// indexRC notes which read_committed final reads hold each value
// (rcHolders), once, when HeldAtRC is first asked: histories without
// transactions never pay for it.
func (a *Finals) indexRC() {
	h := a.h
	a.rcHolders = map[int32][]int32{}
	for f := range h.Finals {
		if !h.Finals[f].RC {
			continue
		}
		s := &a.held[f]
		add := func(v int32) { a.rcHolders[v] = append(a.rcHolders[v], int32(f)) }
		if s.bits == nil {
			for _, v := range s.vals {
				add(v)
			}
			continue
		}
		for w, word := range s.bits {
			for ; word != 0; word &= word - 1 {
				add(int32(w*64 + bits.TrailingZeros64(word)))
			}
		}
	}
}

// HeldAtRC reports whether a completed read_committed final read of tp
// holds val: proof that its txn committed. It looks only at the
// read_committed reads that hold val, not at every read of tp.
func (a *Finals) HeldAtRC(tp, val int32) bool {
	if a.rcHolders == nil {
		a.indexRC()
	}
	for _, f := range a.rcHolders[val] {
		if _, ok := slices.BinarySearch(a.h.TPs[tp].Finals, f); ok {
			return true
		}
	}
	return false
}

// Judge is what the completed final reads of tp say of value val at off,
// known since at; on JudgedLost, miss is the read invoked last among those
// that should hold it and lack it.
func (a *Finals) Judge(val, tp int32, off, at int64) (j Judgement, miss int32) {
	if len(a.byTP[tp].byCall) == 0 {
		return JudgedNoFinal, -1
	}
	miss, judged, couldNot := a.walk(val, tp, off, at, false)
	switch {
	case miss >= 0:
		return JudgedLost, miss
	case judged || a.InSome(val):
		return JudgedHeld, -1
	case couldNot:
		return JudgedUnseen, -1
	}
	return JudgedRetention, -1
}

// MissingUncommitted reports whether a completed read_uncommitted final
// read of tp that should hold val at off, known since at, lacks it: the
// record itself is gone from the log (a read_committed read lacks also
// the records whose commit marker is missing).
func (a *Finals) MissingUncommitted(val, tp int32, off, at int64) bool {
	miss, _, _ := a.walk(val, tp, off, at, true)
	return miss >= 0
}

// walk looks at the reads of tp invoked after at, latest first, and stops
// at the first that should hold val and lacks it (miss, else -1): each
// read it passes holds the value (a record of the history), or began past
// it, or is a read_committed read that ended below it, so that judging
// every value stays near-linear however many final reads there are. The
// reads invoked at or before at could not judge it; whether one of them
// began at or below it (the value is then unseen rather than gone to
// retention) is minStart's. judged: a read should hold it; couldNot: a
// read could not judge it. uncommitted: read_uncommitted reads only.
func (a *Finals) walk(val, tp int32, off, at int64, uncommitted bool) (miss int32, judged, couldNot bool) {
	idx := &a.byTP[tp]
	fs := idx.byCall
	n := sort.Search(len(fs), func(i int) bool { return a.h.Finals[fs[i]].Call <= at })
	couldNot = n < len(fs) && (off < 0 || off >= idx.minStart[n])
	for _, f := range fs[:n] {
		if uncommitted && a.h.Finals[f].RC {
			continue
		}
		switch a.coverOf(f, tp, off, at) {
		case coverJudges:
			if !a.holds(f, val) {
				return f, true, couldNot
			}
			judged = true
		case coverAbove:
			couldNot = true
		}
	}
	return -1, judged, couldNot
}

// HeldUncommitted reports whether a completed read_uncommitted final read
// holds the value of txn send ts on its partition: its record is in the
// log, committed or not.
func (a *Finals) HeldUncommitted(ts int32) bool { return a.tsRU[ts/64]&(1<<(ts%64)) != 0 }
