// Package logmodel is the linearizability model of one partition's log,
// for porcupine: the operations, the steps, and the ranking of times that
// keeps the search linear (order.go). The checker's linearizability domain
// builds the operations from the history and judges porcupine's answer;
// this package knows nothing of histories.
package logmodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/kchaos/kchaos/checker/model"
)

// The linearizability model: one partition's log.
//
// The direct checks look at each value and each offset on its own. The
// model looks at them in real time, through porcupine: it asks whether one
// sequence of appends and reads, each taking effect at an instant within
// its invoke..completion interval, explains everything the clients saw.
//
// Operations:
//
//   - append(O, V): V took offset O. There is one per distinct (offset,
//     value) pair the history shows: an ok send at its acked offset, and a
//     value that reads found at an offset (an info send, an acks=0 send, a
//     retried send's duplicate). It is invoked when V's send was invoked.
//     An acked send returns at its ack; any other append is open-ended
//     (return = Infinity, as etcd's robustness tests do for failed writes),
//     then tightened to the return of the first read that saw it: the model
//     forces the append before that read, so this changes no verdict, only
//     the search. A value whose send failed, or that no send invoked, gets
//     no append: nothing can explain a read of it.
//   - read(records): a poll saw value V at offset O for each record.
//   - final(records, end): the final read saw exactly these records from
//     the log start, and the log ended at end.
//
// State: the set of appends applied, and the frontier: one past the
// highest offset appended. Steps:
//
//   - append(O, V) is legal iff O >= frontier and every lower offset that
//     some append of the history claims is below the frontier (applied): a
//     log hands out offsets in append order, so a later append never takes
//     a lower offset, and an append passed over could never be applied
//     later. The second half changes no verdict, since every append must be
//     linearized; it prunes the search from every interleaving of the
//     concurrent sends (exponential in their number) to the one order their
//     offsets allow.
//   - read is legal iff every (O, V) it returned was appended.
//   - final is legal iff the appends applied at offsets >= the log start
//     are exactly its records; it then raises the frontier to its end.
//
// Why a correct Kafka never fails it: a Kafka leader appends a batch at one
// instant between the send's invoke and its ack, at offset = its log end,
// so appends come in offset order; a consumer reads only below the high
// watermark, what was appended before it read; committed records survive
// leader changes (that is what acks=all with min.insync >= 2 buys), so a
// final read after the faults holds every record anyone acked or read.
// Records that were appended but never committed are truncated unseen, and
// the model never hears of them. Where Kafka's settings allow it to lose
// committed records (acks=1, min.insync=1 with a shrunken ISR, unclean
// elections, power loss) the model fails, as it should: where acked records
// were lost the direct checks report them too; where only records that a
// consumer read but no one acked were lost, the model alone does.
//
// What it catches that the direct checks do not:
//
//   - a read from the future: a poll returned value V at offset O before
//     V's send was even invoked (the direct checks only ask whether some
//     send invoked V, ever);
//   - offsets handed out against real time: a send was acked at offset 10
//     before another send, by any process, was invoked, yet that one got
//     offset 5 (nonmonotonic-send only compares one process's sends);
//   - a record a poll saw that the final read no longer has, or has at
//     another place: a read of an info or acks=0 send that was later lost
//     (lost-write only counts acked sends), or an offset that the final
//     read shows empty although a poll read it before;
//   - an append below the end that a completed final read reported (the log
//     grew back over what was read as its end).
//
// Overlaps: an aborted read, an unexpected value, a lost write, a reused
// offset and, with the sequential sends of the operation model, a
// nonmonotonic send also fail the model; the direct checks name them better.
//
// Porcupine remembers a bitset of the linearized ops at every step, so its
// memory grows with the square of a partition's ops. Histories of more
// than SmallHistory ops are therefore checked in windows of offsets
// (Options.Window): each window is its own porcupine partition, with the
// reads cut to its offsets. A window's history is a projection of the
// whole, so a window that fails is a real violation; what is lost is the
// ordering between offsets of different windows. Histories of at most
// SmallHistory ops are checked whole.
//
// Porcupine is given ranks, not times (RankTimes, order.go): every call
// and return is numbered in time order, a call before a return at one
// instant, and calls at one instant in the order the model applies them
// (appends by offset, then reads, then final reads). This is sound because
// porcupine's verdict depends on the times only through which op returned
// before which was invoked, and the ranks keep every such comparison: only
// calls among calls, or returns among returns, at one instant get an
// order, and porcupine never compares those. What it buys is the search:
// porcupine sorts by time unstably and restarts at the first pending call
// after each step, so thousands of appends invoked at one instant (one
// value that reads found at 40,000 offsets, each offset an append invoked
// when the value's send was) cost a scan of half of them per step,
// quadratic in all; in offset order the first call tried is the one the
// model takes, and such a history checks in linear steps. The value is a
// duplicate, found directly, whatever the model says.

// Op is a model operation's input; outputs are not used.
type Op struct {
	Kind uint8 // Append, Read or Final
	Win  int64 // its window of offsets (porcupine partition)
	Proc int32
	ID   int32       // append: its number in the window
	Off  int64       // append: its offset
	Prev int64       // append: the next lower offset of an append in the window
	Val  int32       // append: its value (for descriptions)
	IDs  []int32     // read: the appends of its records (-1: none explains it)
	Want []uint64    // final: the appends its records are
	Mask []uint64    // final: the appends it covers (offsets >= log start)
	Bad  bool        // final: a record that no append explains
	End  int64       // final: the log end it saw, or math.MinInt64
	Recs []model.Rec // read, final: its records, for descriptions
	At   [2]int64    // its call and return before RankTimes, for descriptions
}

// Kinds of Op.
const (
	Append uint8 = iota
	Read
	Final
)

// Infinity is the return time of an op that never returned.
const Infinity = math.MaxInt64 / 4

// seconds is t (nanoseconds of the run) in seconds, to the millisecond,
// as the checker's results give times.
func seconds(t int64) float64 { return math.Round(float64(t)/1e6) / 1e3 }

// linState is immutable: steps return new states.
type linState struct {
	frontier int64
	set      []uint64
	hash     uint64 // of set
}

var initState = &linState{frontier: math.MinInt64}

func (s *linState) has(id int32) bool {
	w := int(id / 64)
	return w < len(s.set) && s.set[w]&(1<<(id%64)) != 0
}

func word(b []uint64, i int) uint64 {
	if i < len(b) {
		return b[i]
	}
	return 0
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func linStep(state, input, _ any) (bool, any) {
	st, in := state.(*linState), input.(*Op)
	switch in.Kind {
	case Append:
		if in.Off < st.frontier || (in.Prev != math.MinInt64 && in.Prev >= st.frontier) {
			return false, st
		}
		set := make([]uint64, max(len(st.set), int(in.ID/64)+1))
		copy(set, st.set)
		set[in.ID/64] |= 1 << (in.ID % 64)
		return true, &linState{frontier: in.Off + 1, set: set, hash: st.hash ^ mix(uint64(in.ID))}
	case Read:
		for _, id := range in.IDs {
			if id < 0 || !st.has(id) {
				return false, st
			}
		}
		return true, st
	}
	if in.Bad {
		return false, st
	}
	for i := range max(len(st.set), len(in.Mask)) {
		if word(st.set, i)&word(in.Mask, i) != word(in.Want, i) {
			return false, st
		}
	}
	if in.End > st.frontier {
		return true, &linState{frontier: in.End, set: st.set, hash: st.hash}
	}
	return true, st
}

func linEqual(a, b any) bool {
	x, y := a.(*linState), b.(*linState)
	if x.frontier != y.frontier || x.hash != y.hash {
		return false
	}
	for i := range max(len(x.set), len(y.set)) {
		if word(x.set, i) != word(y.set, i) {
			return false
		}
	}
	return true
}

// Model is the porcupine model; names resolves values for descriptions.
func Model(names func(int32) string) porcupine.Model {
	return porcupine.Model{
		Partition: partition,
		Init:      func() any { return initState },
		Step:      linStep,
		Equal:     linEqual,
		Hash: func(s any) uint64 {
			st := s.(*linState)
			return st.hash ^ mix(uint64(st.frontier))
		},
		DescribeOperation: func(input, _ any) string { return describeOp(input.(*Op), names) },
		DescribeState: func(s any) string {
			st := s.(*linState)
			n := 0
			for _, w := range st.set {
				for ; w != 0; w &= w - 1 {
					n++
				}
			}
			if st.frontier == math.MinInt64 {
				return "empty log"
			}
			return fmt.Sprintf("%d appends; next offset >= %d", n, st.frontier)
		},
	}
}

// partition cuts h into its windows, in the order of their first op,
// each op keeping its order. The windows are carved from one array sized
// by a first count: growing a slice per window by appending copied the
// ops of a large history (56 bytes each) several times over, the largest
// allocation of a check.
func partition(h []porcupine.Operation) [][]porcupine.Operation {
	at := map[int64]int32{}
	win := make([]int32, len(h)) // each op's window index
	var count []int
	for k := range h {
		w := h[k].Input.(*Op).Win
		i, ok := at[w]
		if !ok {
			i = int32(len(count))
			at[w] = i
			count = append(count, 0)
		}
		win[k] = i
		count[i]++
	}
	all := make([]porcupine.Operation, len(h))
	out := make([][]porcupine.Operation, len(count))
	pos := 0
	for i, n := range count {
		out[i] = all[pos : pos : pos+n]
		pos += n
	}
	for k := range h {
		out[win[k]] = append(out[win[k]], h[k])
	}
	return out
}

func describeOp(in *Op, names func(int32) string) string {
	if in.Kind == Append {
		return fmt.Sprintf("p%d send %s -> offset %d%s", in.Proc, names(in.Val), in.Off, describeAt(in))
	}
	var b strings.Builder
	if in.Kind == Read {
		fmt.Fprintf(&b, "p%d poll", in.Proc)
	} else {
		fmt.Fprintf(&b, "p%d final-read", in.Proc)
		if in.End != math.MinInt64 {
			fmt.Fprintf(&b, " (end %d)", in.End)
		}
	}
	for i, r := range in.Recs {
		if i == 8 {
			fmt.Fprintf(&b, " ... (%d records)", len(in.Recs))
			break
		}
		fmt.Fprintf(&b, " %d=%s", r.Off, names(r.Val))
	}
	if len(in.Recs) == 0 {
		b.WriteString(" nothing")
	}
	b.WriteString(describeAt(in))
	return b.String()
}

// describeAt is an op's real interval (the model runs on ranks).
func describeAt(in *Op) string {
	if in.At == [2]int64{} {
		return ""
	}
	if in.At[1] >= Infinity {
		return fmt.Sprintf(" [%.3f s, never returned]", seconds(in.At[0]))
	}
	return fmt.Sprintf(" [%.3f-%.3f s]", seconds(in.At[0]), seconds(in.At[1]))
}
