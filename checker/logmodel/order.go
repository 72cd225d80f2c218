package logmodel

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// RankTimes renumbers the call and return times of ops to their ranks in
// one order of all the calls and returns: by time, a call before a return
// at the same time (as porcupine orders them), and calls at one time in
// the order the model can apply them: appends by offset, then reads, then
// final reads. The original times stay in each op's input (at, for the
// descriptions).
//
// Why it changes no verdict: porcupine's answer depends on the times only
// through the real-time order of the ops, "a returned before b was
// invoked", i.e. ret(a) < call(b), with a call before a return at equal
// times. The renumbering keeps every call-return comparison: if call(b) <
// ret(a) by time, or they are equal, the call sorts first; if ret(a) <
// call(b), the return does. Only calls among calls and returns among
// returns at one time are put in an order, and porcupine never compares
// those. So the ops have the same precedence, the same linearizations and
// the same verdict.
//
// Why it is needed: porcupine sorts by time with an unstable sort, so
// calls at one time come in any order; after each step its search
// restarts at the first call in that order. When thousands of appends
// were invoked at one instant (one send whose value reads found at 40,000
// offsets: every such append is invoked when that send was), each step
// tried on average half of them before the one whose offset is next, and
// the check took time quadratic in them. In offset order the first call
// tried is the one the model takes.
func RankTimes(ops []porcupine.Operation) {
	evs := make([]rankEv, 0, 2*len(ops))
	for i := range ops {
		in := ops[i].Input.(*Op)
		in.At = [2]int64{ops[i].Call, ops[i].Return}
		evs = append(evs, rankEv{t: ops[i].Call, kind: in.Kind, off: in.Off, i: int32(i)},
			rankEv{t: ops[i].Return, ret: true, kind: in.Kind, off: in.Off, i: int32(i)})
	}
	sortEvs(evs)
	for r, e := range evs {
		if e.ret {
			ops[e.i].Return = int64(r)
		} else {
			ops[e.i].Call = int64(r)
		}
	}
}

// rankEv is one call or return to rank.
type rankEv struct {
	t    int64
	off  int64
	i    int32
	ret  bool
	kind uint8
}

// compareEvs is the order of RankTimes: by time, a call before a return,
// calls by kind, appends by offset, then by op (a total order: no two
// events of one op share ret).
func compareEvs(x, y rankEv) int {
	if c := cmp.Compare(x.t, y.t); c != 0 {
		return c
	}
	if x.ret != y.ret {
		if x.ret {
			return 1
		}
		return -1
	}
	if c := cmp.Compare(x.kind, y.kind); c != 0 {
		return c
	}
	if x.kind == Append {
		if c := cmp.Compare(x.off, y.off); c != 0 {
			return c
		}
	}
	return cmp.Compare(x.i, y.i)
}

// sortEvs sorts evs by compareEvs: a stable radix sort by time (a
// comparison sort was a third of building a partition's ops in a 1M-op
// check: 2 events per op, 20 comparisons each through a function value),
// then each run of equal times by the whole order. Times are mostly
// distinct, so the runs are short; the result is the one order
// compareEvs defines, whatever the sort.
func sortEvs(evs []rankEv) {
	n := len(evs)
	if n < 256 {
		slices.SortFunc(evs, compareEvs)
		return
	}
	var counts [8][256]int
	for i := range evs {
		k := uint64(evs[i].t) ^ 1<<63 // signed order as unsigned
		for d := range 8 {
			counts[d][byte(k>>(8*d))]++
		}
	}
	src, dst := evs, make([]rankEv, n)
	for d := range 8 {
		c := &counts[d]
		if c[byte((uint64(src[0].t)^1<<63)>>(8*d))] == n {
			continue // every time has this digit: the pass would move nothing
		}
		pos := 0
		for b := range c {
			c[b], pos = pos, pos+c[b]
		}
		shift := 8 * d
		for i := range src {
			b := byte((uint64(src[i].t) ^ 1<<63) >> shift)
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &evs[0] {
		copy(evs, src)
	}
	for i := 0; i < n; {
		j := i + 1
		for j < n && evs[j].t == evs[i].t {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(evs[i:j], compareEvs)
		}
		i = j
	}
}
