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
	type ev struct {
		t    int64
		ret  bool
		kind uint8
		off  int64
		i    int32
	}
	evs := make([]ev, 0, 2*len(ops))
	for i := range ops {
		in := ops[i].Input.(*Op)
		in.At = [2]int64{ops[i].Call, ops[i].Return}
		evs = append(evs, ev{t: ops[i].Call, kind: in.Kind, off: in.Off, i: int32(i)},
			ev{t: ops[i].Return, ret: true, kind: in.Kind, off: in.Off, i: int32(i)})
	}
	slices.SortFunc(evs, func(x, y ev) int {
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
	})
	for r, e := range evs {
		if e.ret {
			ops[e.i].Return = int64(r)
		} else {
			ops[e.i].Call = int64(r)
		}
	}
}
