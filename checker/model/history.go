package model

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/histories"
)

// History is the compact form of a decoded history that the analyzers
// read: each value once, each send as a fixed-size record, each record
// read as 24 bytes (Rec). Numbers index it: a tp is an index in TPs, a
// value in Vals, a send in Sends, a read's records a range of Recs. The
// checker fills it one event at a time; the analyzers only read it.
type History struct {
	TPs          []*TP             // topic-partitions, numbered in file order
	Vals         []Value           // values, numbered in order first seen
	Sends        []Send            // plain sends, in invoke order
	SendErr      map[int32]string  // send -> its completion's error
	Polls        []Read            // ok polls, in completion order
	Finals       []Read            // ok (completed) final reads, in completion order
	Partials     []Read            // final reads that ended info or fail with records
	SendsOf      map[int32][]int32 // value -> its sends after the first (values re-sent)
	Recs         []Rec             // records of polls and final reads, each read's sorted by (tp, offset)
	Clients      int64             // client ops invoked
	TxnTP        []bool            // tp -> holds txn writes or read_committed reads
	Nem          []NemOp           // nemesis ops, in invoke order
	Requests     []RequestOp       // the request faults' actions, in file order
	Topics       map[string]int32  // topic -> topic number
	TPIdx        []map[int32]int32 // topic number -> partition -> tp
	ValIdx       ValueIndex        // value -> value number (values.go)
	Log                            // the log's order (log.go)
	Transactions                   // transactions (txns.go)
	Groups                         // consumer groups (groups.go)
}

// NemOp is one nemesis op: its invoke and completion.
type NemOp struct {
	F         string
	Typ       histories.Type // of the completion; "" while open
	Call, Ret int64
	V         histories.NemesisValue
}

// RequestOp is one action of a request fault (a request event,
// histories.FRequest): no fault window of its own (its fault's op is
// one), but the moment a client's request was dropped, delayed, repeated
// or answered, which an explanation names.
type RequestOp struct {
	At    int64
	Fault string // the request fault whose rule acted
	A     histories.RequestAction
}

// TP is what the checker knows of one topic-partition.
type TP struct {
	Topic     string
	Partition int32
	Offs      OffsetTable
	Obs       []Sample   // observer samples, kept when something but the HW changed
	LogStarts []LogStart // observer samples with a log start offset, kept when it changed
	Final     int32      // the last completed final read covering it, or -1
	Finals    []int32    // every completed final read covering it, in completion order
	Avail     Avail
	Polled    int           // records polled
	epochs    map[int32]int // epoch -> its first sample with a leader; built after the last Add
}

func NewTP(topic string, p int32) *TP {
	return &TP{Topic: topic, Partition: p, Final: -1, Avail: Avail{Since: -1, LastOK: -1}}
}

func (t *TP) Name() string { return TPName(t.Topic, t.Partition) }

// TPName names a topic-partition as the checker's texts do: "orders-0".
func TPName(topic string, partition int32) string { return fmt.Sprintf("%s-%d", topic, partition) }

// Sample is an observer sample that differs from the one before it in
// leader, epoch, ISR, ELR or last known ELR.
type Sample struct {
	At                int64
	Leader, Epoch     int32
	ISR, ELR, LastELR []int32
	HW                int64
	// election is set on a sample whose epoch rose to a live leader: how
	// the new leader stood in the previous sample ("clean" if in its ISR,
	// "elr", "last-known-elr", else "unclean"; "" with no previous sample).
	Election string
}

// LogStart is an observer sample's log start offset of a partition, with
// its log end then (the highest of the replicas' log end offsets and the
// high watermark; -1 unknown).
type LogStart struct{ At, Offset, End int64 }

// At returns the latest sample at or before time t, or nil.
func (t *TP) At(when int64) *Sample {
	i := sort.Search(len(t.Obs), func(i int) bool { return t.Obs[i].At > when })
	if i == 0 {
		return nil
	}
	return &t.Obs[i-1]
}

// EpochStart returns the first sample showing epoch with a leader, or nil.
func (t *TP) EpochStart(epoch int32) *Sample {
	if t.epochs == nil {
		t.epochs = map[int32]int{}
		for i := len(t.Obs) - 1; i >= 0; i-- {
			if t.Obs[i].Leader >= 0 {
				t.epochs[t.Obs[i].Epoch] = i
			}
		}
	}
	if i, ok := t.epochs[epoch]; ok {
		return &t.Obs[i]
	}
	return nil
}

// OffsetTable maps each offset of a partition to the values seen there:
// densely while offsets stay small and compact, sparsely beyond.
type OffsetTable struct {
	dense  []int32 // value+1 at each offset below len(dense); 0 = none seen
	sparse map[int64]int32
	n      int                 // offsets held
	more   map[int64][]int32   // other distinct values seen at an offset
	inMore map[offVal]struct{} // the pairs in more, for a constant-time check
}

type offVal struct {
	off int64
	val int32
}

const maxDense = 1 << 26

// First is the first value seen at off, if any.
func (t *OffsetTable) First(off int64) (int32, bool) { return t.first(off) }

func (t *OffsetTable) first(off int64) (int32, bool) {
	if off < int64(len(t.dense)) {
		v := t.dense[off]
		return v - 1, v != 0
	}
	v, ok := t.sparse[off]
	return v, ok
}

// add records val at off. The dense array grows only while it stays at
// least a sixteenth full, so its memory follows the offsets the history
// holds, never the largest offset it names; the sparse map holds the rest.
func (t *OffsetTable) Add(off int64, val int32) {
	if off >= int64(len(t.dense)) && off < maxDense {
		n := max(off+1, 2*int64(len(t.dense)), 4096)
		if n <= 16*int64(t.n+1) || n <= 4096 {
			t.grow(n)
		}
	}
	if old, ok := t.first(off); !ok {
		t.n++
		if off < int64(len(t.dense)) {
			t.dense[off] = val + 1
		} else {
			if t.sparse == nil {
				t.sparse = map[int64]int32{}
			}
			t.sparse[off] = val
		}
		return
	} else if old == val {
		return
	}
	if _, ok := t.inMore[offVal{off, val}]; ok {
		return
	}
	if t.more == nil {
		t.more, t.inMore = map[int64][]int32{}, map[offVal]struct{}{}
	}
	t.more[off] = append(t.more[off], val)
	t.inMore[offVal{off, val}] = struct{}{}
}

// grow makes the dense array n long, moving in what the sparse map held below n.
func (t *OffsetTable) grow(n int64) {
	t.dense = append(t.dense, make([]int32, n-int64(len(t.dense)))...)
	for o, v := range t.sparse {
		if o < n {
			t.dense[o] = v + 1
			delete(t.sparse, o)
		}
	}
}

// values returns every distinct value seen at off, first seen first.
func (t *OffsetTable) Values(off int64) []int32 {
	v, ok := t.first(off)
	if !ok {
		return nil
	}
	return append([]int32{v}, t.more[off]...)
}

// reused returns the offsets that held more than one value, in order.
func (t *OffsetTable) Reused() []int64 {
	return slices.Sorted(maps.Keys(t.more))
}

// Avail follows a partition's availability as its sends see it: a send that
// fails or times out opens an interval (from its invoke, or the last ok
// before it if later) that the next acked send closes.
type Avail struct {
	Since  int64 // start of the open interval, or -1
	LastOK int64
	Errs   map[string]int
	Spans  []AvailSpan
}

type AvailSpan struct {
	From, To int64
	Open     bool
	Cause    string
	Errs     map[string]int
}

func (a *Avail) OK(at int64) {
	if a.Since >= 0 {
		a.Spans = append(a.Spans, AvailSpan{From: a.Since, To: at, Cause: "sends-failing", Errs: a.Errs})
		a.Since, a.Errs = -1, nil
	}
	a.LastOK = max(a.LastOK, at)
}

func (a *Avail) Failed(call, at int64, typ histories.Type, err string) {
	if a.Since < 0 {
		a.Since = max(call, a.LastOK)
		a.Errs = map[string]int{}
	}
	if err == "" {
		err = string(typ)
	}
	a.Errs[err]++
}

// Op outcomes of a send (Send.Typ), also of a txn and a commit.
const (
	OpOpen uint8 = iota
	OpOK
	OpOKNoOffset // acks=0: unknown outcome
	OpFail
	OpInfo
)

// Send is a send. It holds no pointers, so that the garbage collector
// never scans the million of them; errors are in History.SendErr.
type Send struct {
	Val, TP, Proc int32
	Typ           uint8
	Call, Ret     int64
	Off           int64 // -1 unless acked with an offset
}

// Read is a poll or a final read: its records are a range of History.Recs.
type Read struct {
	Proc       int32
	Call, Ret  int64
	Start, End int32           // its records in History.Recs, sorted by (tp, offset)
	Ends       map[int32]int64 // final read: tp -> end offset
	Starts     map[int32]int64 // final read: tp -> log start offset
	RC         bool            // read at read_committed
	TxnEnds    *FinalTxnEnds   // final read: high watermarks, LSOs, open txns
}

// FinalTxnEnds is what a final read learned of a partition's transactions:
// its high watermark and last stable offset, and the transactions its
// leader held open (the txn-hanging check, package txncheck).
type FinalTxnEnds struct {
	HWs, LSOs map[int32]int64
	Open      map[int32][]histories.OpenTxn
}

// Value is one distinct value of the history, kept once.
type Value struct {
	Str    string
	Send   int32 // first send that invoked it, or -1
	TP     int32 // where it was first seen, or -1
	Off    int64
	Txn    int32 // first txn send that invoked it, or -1
	Polled bool  // some poll returned it
	Read   bool  // some poll or final read returned it
}

// MarkTxnTP notes that tp holds txn writes or read_committed reads: the
// linearizability model leaves it out (it does not model transactions).
func (h *History) MarkTxnTP(tp int32) {
	for int(tp) >= len(h.TxnTP) {
		h.TxnTP = append(h.TxnTP, false)
	}
	h.TxnTP[tp] = true
}

// IsTxnTP reports whether MarkTxnTP marked tp.
func (h *History) IsTxnTP(tp int32) bool { return int(tp) < len(h.TxnTP) && h.TxnTP[tp] }

// Explainer returns the send that best explains value val at offset off
// of tp: one acked there; else one sent to tp whose outcome leaves the
// record possible (ok, ok without offset, info); else one sent to tp that
// failed; else any send of the value; -1 if none invoked it.
func (h *History) Explainer(val, tp int32, off int64) int32 {
	best, _ := h.explainRank(val, tp, off)
	return best
}

// explainRank is Explainer with the rank of its choice: 4 acked there, 3
// sent there with an outcome that leaves it possible, 2 sent there and
// failed, 1 sent elsewhere, 0 none (see writer, which weighs txn sends).
func (h *History) explainRank(val, tp int32, off int64) (int32, int) {
	return bestRanked(h.Vals[val].Send, h.SendsOf[val], func(i int32) int {
		s := &h.Sends[i]
		switch {
		case s.TP == tp && s.Typ == OpOK && s.Off == off:
			return 4
		case s.TP == tp && s.Typ != OpFail:
			return 3
		case s.TP == tp:
			return 2
		}
		return 1
	})
}

// bestRanked returns, of first (-1: none) and more, the first of the
// highest rank, and its rank (0 for none): how ExplainRank and txnRank
// choose among a value's sends.
func bestRanked(first int32, more []int32, rank func(i int32) int) (int32, int) {
	if first < 0 {
		return -1, 0
	}
	best, top := first, rank(first)
	for _, i := range more {
		if r := rank(i); r > top {
			best, top = i, r
		}
	}
	return best, top
}

// Outcome is an op's outcome as results.json words it: ok (with or
// without an offset), fail, or info.
func Outcome(typ uint8) string {
	switch typ {
	case OpOK, OpOKNoOffset:
		return "ok"
	case OpFail:
		return "fail"
	}
	return "info"
}

// HW is the high watermark a final read recorded for tp.
func (op *Read) HW(tp int32) (int64, bool) {
	if op.TxnEnds == nil {
		return 0, false
	}
	hw, ok := op.TxnEnds.HWs[tp]
	return hw, ok
}
