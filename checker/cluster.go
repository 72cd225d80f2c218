package checker

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/histories"
)

// tpInfo is what the checker knows of one topic-partition.
type tpInfo struct {
	topic     string
	partition int32
	offs      offsetTable
	obs       []obsChange // observer samples, kept when something but the HW changed
	final     int32       // the last completed final read covering it, or -1
	finals    []int32     // every completed final read covering it, in completion order
	avail     avail
	polled    int           // records polled
	epochs    map[int32]int // epoch -> its first sample with a leader; built after the last Add
}

func newTPInfo(topic string, p int32) *tpInfo {
	return &tpInfo{topic: topic, partition: p, final: -1, avail: avail{since: -1, lastOK: -1}}
}

func (t *tpInfo) name() string { return fmt.Sprintf("%s-%d", t.topic, t.partition) }

// obsChange is an observer sample that differs from the one before it in
// leader, epoch, ISR, ELR or last known ELR.
type obsChange struct {
	at                int64
	leader, epoch     int32
	isr, elr, lastELR []int32
	hw                int64
	// election is set on a sample whose epoch rose to a live leader: how
	// the new leader stood in the previous sample ("clean" if in its ISR,
	// "elr", "last-known-elr", else "unclean"; "" with no previous sample).
	election string
}

func (c *Checker) addObserve(e *histories.Event) error {
	if len(e.Value) == 0 || e.Type == histories.Invoke || e.Type == histories.Fail {
		return nil
	}
	var v histories.ObserveValue
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("observe value: %w", err)
	}
	if v.Topic == "" {
		return nil
	}
	t := c.tps[c.tp([]byte(v.Topic), v.Partition)]
	o := obsChange{at: e.Time, leader: v.Leader, epoch: v.LeaderEpoch, isr: v.ISR, elr: v.ELR,
		lastELR: v.LastKnownELR, hw: v.HighWatermark}
	if n := len(t.obs); n > 0 {
		prev := &t.obs[n-1]
		if prev.leader == o.leader && prev.epoch == o.epoch && slices.Equal(prev.isr, o.isr) &&
			slices.Equal(prev.elr, o.elr) && slices.Equal(prev.lastELR, o.lastELR) {
			return nil
		}
		if o.epoch > prev.epoch && o.leader >= 0 {
			switch {
			case slices.Contains(prev.isr, o.leader):
				o.election = "clean"
			case slices.Contains(prev.elr, o.leader):
				o.election = "elr"
			case slices.Contains(prev.lastELR, o.leader):
				o.election = "last-known-elr"
			default:
				o.election = "unclean"
			}
		}
	}
	t.obs = append(t.obs, o)
	return nil
}

// at returns the latest sample at or before time t, or nil.
func (t *tpInfo) at(when int64) *obsChange {
	i := sort.Search(len(t.obs), func(i int) bool { return t.obs[i].at > when })
	if i == 0 {
		return nil
	}
	return &t.obs[i-1]
}

// epochStart returns the first sample showing epoch with a leader, or nil.
func (t *tpInfo) epochStart(epoch int32) *obsChange {
	if t.epochs == nil {
		t.epochs = map[int32]int{}
		for i := len(t.obs) - 1; i >= 0; i-- {
			if t.obs[i].leader >= 0 {
				t.epochs[t.obs[i].epoch] = i
			}
		}
	}
	if i, ok := t.epochs[epoch]; ok {
		return &t.obs[i]
	}
	return nil
}

// nemOp is one nemesis op: its invoke and completion.
type nemOp struct {
	f         string
	typ       histories.Type // of the completion; "" while open
	call, ret int64
	v         histories.NemesisValue
}

// healing names the nemesis ops that undo a fault rather than make one.
func healing(f string) bool { return histories.KindOf(f) == histories.Undo }

func (c *Checker) addNemesis(e *histories.Event) error {
	if histories.IsBookkeeping(e.F) {
		// The runner's records of the schedule (mode, seed, plan) and of
		// its untils: no fault, so never "the fault that preceded a loss".
		return nil
	}
	var v histories.NemesisValue
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("nemesis value: %w", err)
	}
	if e.Type == histories.Invoke {
		c.nemAt[e.F] = len(c.nem)
		c.nem = append(c.nem, nemOp{f: e.F, call: e.Time, ret: -1, v: v})
		return nil
	}
	i, ok := c.nemAt[e.F]
	if !ok {
		c.nem = append(c.nem, nemOp{f: e.F, typ: e.Type, call: e.Time, ret: e.Time, v: v})
		return nil
	}
	delete(c.nemAt, e.F)
	op := &c.nem[i]
	op.typ, op.ret = e.Type, e.Time
	if op.v.Fault == "" {
		op.v.Fault = v.Fault
	}
	if len(op.v.Nodes) == 0 {
		op.v.Nodes = v.Nodes
	}
	for k, d := range v.Details {
		if op.v.Details == nil {
			op.v.Details = map[string]any{}
		}
		op.v.Details[k] = d
	}
	return nil
}

// offsetTable maps each offset of a partition to the values seen there:
// densely while offsets stay small and compact, sparsely beyond.
type offsetTable struct {
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

func (t *offsetTable) first(off int64) (int32, bool) {
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
func (t *offsetTable) add(off int64, val int32) {
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
func (t *offsetTable) grow(n int64) {
	t.dense = append(t.dense, make([]int32, n-int64(len(t.dense)))...)
	for o, v := range t.sparse {
		if o < n {
			t.dense[o] = v + 1
			delete(t.sparse, o)
		}
	}
}

// values returns every distinct value seen at off, first seen first.
func (t *offsetTable) values(off int64) []int32 {
	v, ok := t.first(off)
	if !ok {
		return nil
	}
	return append([]int32{v}, t.more[off]...)
}

// reused returns the offsets that held more than one value, in order.
func (t *offsetTable) reused() []int64 {
	out := make([]int64, 0, len(t.more))
	for o := range t.more {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

// avail follows a partition's availability as its sends see it: a send that
// fails or times out opens an interval (from its invoke, or the last ok
// before it if later) that the next acked send closes.
type avail struct {
	since  int64 // start of the open interval, or -1
	lastOK int64
	errs   map[string]int
	spans  []availSpan
}

type availSpan struct {
	from, to int64
	open     bool
	cause    string
	errs     map[string]int
}

func (a *avail) ok(at int64) {
	if a.since >= 0 {
		a.spans = append(a.spans, availSpan{from: a.since, to: at, cause: "sends-failing", errs: a.errs})
		a.since, a.errs = -1, nil
	}
	a.lastOK = max(a.lastOK, at)
}

func (a *avail) failed(call, at int64, typ histories.Type, err string) {
	if a.since < 0 {
		a.since = max(call, a.lastOK)
		a.errs = map[string]int{}
	}
	if err == "" {
		err = string(typ)
	}
	a.errs[err]++
}
