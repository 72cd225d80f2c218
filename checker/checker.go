package checker

import (
	"errors"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/checker/linearize"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
)

// Options steer a check.
type Options struct {
	// Idempotent says the producer was idempotent. Only then do duplicate
	// and nonmonotonic-send count toward validity: Kafka promises neither
	// without it. CheckPath takes it from run.json; a bare history is
	// checked as from a non-idempotent producer.
	Idempotent bool
	// PorcupineTimeout bounds the whole linearizability check (0 means
	// DefaultPorcupineTimeout). A check cut short is "unknown", never a pass.
	PorcupineTimeout time.Duration
	// SkipLinearizability leaves porcupine out; the result says "skipped".
	SkipLinearizability bool
	// VisualizeDir, if set, receives porcupine's HTML visualization of each
	// topic-partition that fails, and only of those: a page is written for
	// a human to open on a violation, and one per partition of every small
	// history cost a write nobody read. Each holds at most SmallHistory ops
	// (the partition of a small history, or its failing windows; about
	// 230 bytes an op, so at most about 1.2 MB).
	VisualizeDir string
	// Window is the number of offsets per porcupine partition in a large
	// history (0 means DefaultWindow); see package logmodel.
	Window int64
	// Topic and Partitions, when set, are the run's topic and its number
	// of partitions (CheckPath takes them from run.json): an event naming
	// another topic, or a partition at or past Partitions, is bad input.
	Topic      string
	Partitions int
	// ExactlyOnce says the run's consumer group declares exactly-once
	// delivery (CheckPath takes it from run.json's group.delivery): only
	// then does a redelivery count against validity.
	ExactlyOnce bool
	// TxnTimeout is the transactional producers' transaction.timeout.ms
	// (CheckPath takes it from run.json): a txn-hanging that stayed open
	// longer than it plus HangingMargin after the final heal counts. 0:
	// the coordinator's answer recorded with the open txn, else Kafka's
	// largest allowed timeout (transaction.max.timeout.ms, 15 min).
	TxnTimeout time.Duration
	// TopicConfigs is the topic's configs as applied (CheckPath takes them
	// from run.json): log-start-jump reads retention.ms and retention.bytes.
	TopicConfigs map[string]string
	// ControllerConfigs are the controllers' server.properties (CheckPath
	// takes them from run.json; nil: not recorded): the metadata domain
	// reads controller.quorum.auto.join.enable, without which a removed
	// voter that voted again may have re-added itself (KAFKA-19850).
	ControllerConfigs map[int32]map[string]string
	// Pass, if set, takes every event of the check's read of the history
	// (on a goroutine of its own, beside the checking): the report and the
	// harness's metrics attach their sinks to it, so that a run's history
	// is decoded once (package histories/pass). CheckReader ends it (Done)
	// when the history was read to its end.
	Pass *pass.Pass

	prefix   string // of visualization files; CheckPath sets it
	sizeHint int64  // bytes of history, to size tables; CheckPath sets it
}

// The linearizability budget and windows (package linearize owns them).
const (
	// DefaultPorcupineTimeout is the linearizability budget of a check.
	DefaultPorcupineTimeout = linearize.DefaultPorcupineTimeout
	// defaultWindow is the offsets per porcupine partition of a large history.
	defaultWindow = linearize.DefaultWindow
	// smallHistory is the most client ops of a history that porcupine checks
	// whole (one partition per topic-partition) and visualizes throughout.
	smallHistory = linearize.SmallHistory
)

// checkEvents checks a whole history held in memory.
func checkEvents(events []histories.Event, opts Options) (*Result, error) {
	c := newChecker(opts)
	for i := range events {
		if err := c.Add(&events[i]); err != nil {
			at := events[i].Index
			if ie := (*invokeError)(nil); errors.As(err, &ie) {
				at = ie.index // the event that carries the field
			}
			return nil, fmt.Errorf("event %d: %w", at, err)
		}
	}
	feed(opts.Pass, events)
	return c.result(), nil
}

// checker accumulates a history one event at a time (Add) and then judges
// it (Result). It keeps a compact form of what the checks need: each value
// once, each send as a fixed-size record, each record read as 24 bytes.
type checker struct {
	opts Options

	dupSet        map[valAt]struct{}        // the pairs in DupAt
	ignored       map[string]int            // client ops with an f outside the contract, by f
	open          map[int]*pending          // client process -> its open op
	gone          map[int]bool              // client processes retired by an info
	seqs          map[procTP]*pollSeq       // poll order per consumer and partition
	sendAt        map[procTP]int32          // each process's last ok send per partition
	nemAt         map[string]int            // nemesis f -> its open op
	failed        []finalTry                // final reads that did not complete
	ops           map[string]map[string]int // f -> type -> events
	errs          map[string]int            // error -> completions
	reclas        int                       // fail sends taken as info (see completeSend)
	first         int64                     //
	last          int64                     //
	events        int64                     //
	tornLine      int                       //
	line          int                       // the line of the event being added (CheckReader), 0 unknown
	scratch       histories.ReadFields      //
	readNames     []readName                // see readWhat
	groupState                              // consumer groups (group.go)
	meta          metadataState             // KRaft metadata (domain_metadata.go)
	metaIn        metaInput                 // metadata ops' required fields (metadata_input.go)
	shares        *share.Builder            // share ops (domain_share.go), nil without any
	model.History                           // the tables the analyzers read
}

// tpOff is a place in the log (model.TPOff).
type tpOff = model.TPOff

type valAt struct {
	val int32
	at  tpOff
}

type procTP struct {
	proc int32
	tp   int32
}

// rec is a record read (model.Rec).
type rec = model.Rec

type pending struct {
	f    string
	call int64
	at   invokeAt   // where its invoke is, for errors in its fields found at completion
	send int32      // index in sends
	txn  int32      // index in txns
	tps  []int32    // final read: the partitions asked for
	rc   bool       // a poll or final read at read_committed
	gp   *groupPend // a group member's op (group.go)
}

// invokeAt is where an invoke is: its history index and its line (0 when
// the events do not come from a file).
type invokeAt struct {
	index int64
	line  int
}

// invokeError is bad input found when an op completes, in a field that
// its invoke carries (a subscribe's "continues" is judged once the
// subscribe is known to be ok): it names the invoke's line, not the
// completion's (docs/HISTORY.md, "Rules the checker holds to").
type invokeError struct {
	invokeAt
	err error
}

func (e *invokeError) Error() string { return e.err.Error() }
func (e *invokeError) Unwrap() error { return e.err }

// atInvoke makes err name pd's invoke.
func atInvoke(pd *pending, err error) error {
	if err == nil {
		return nil
	}
	return &invokeError{pd.at, err}
}

type finalTry struct {
	proc int
	typ  histories.Type
	at   int64
	err  string
	tps  []int32
}

// newChecker returns an empty Checker.
func newChecker(opts Options) *checker {
	// About 500 bytes of history per value sent, half that per record read
	// (measured on generated histories): sizing the tables up front saves
	// rehashing a map of a million values and copying the big slices.
	n := int(min(opts.sizeHint, 1<<40) / 500)
	return &checker{
		History: model.History{
			Vals:    make([]model.Value, 0, n),
			Sends:   make([]model.Send, 0, n),
			Recs:    make([]rec, 0, 2*n),
			SendErr: map[int32]string{},
			SendsOf: map[int32][]int32{},
			Log:     model.Log{DupAt: map[int32][]tpOff{}},
			Topics:  map[string]int32{},
			ValIdx:  model.NewValueIndex(n),
		},
		opts:    opts,
		dupSet:  map[valAt]struct{}{},
		ignored: map[string]int{},
		open:    map[int]*pending{},
		gone:    map[int]bool{},
		seqs:    map[procTP]*pollSeq{},
		sendAt:  map[procTP]int32{},
		nemAt:   map[string]int{},
		ops:     map[string]map[string]int{},
		errs:    map[string]int{},
		first:   -1,
	}
}

// Add takes the next event of the history. It returns an error for an
// event that breaks the operation model or whose value is not of its
// contract shape; the Checker is then unusable.
func (c *checker) Add(e *histories.Event) error {
	if !e.Type.Valid() {
		return fmt.Errorf("type %q: want invoke, ok, fail or info", e.Type)
	}
	// Times come from one monotonic clock read under the recorder's lock:
	// the interval logic (and porcupine) rely on them never going back.
	if c.events > 0 && e.Time < c.last {
		return fmt.Errorf("time %d is before the previous event's %d", e.Time, c.last)
	}
	c.events++
	if c.first < 0 {
		c.first = e.Time
	}
	c.last = e.Time
	byType := c.ops[e.F]
	if byType == nil {
		byType = map[string]int{}
		c.ops[e.F] = byType
	}
	byType[string(e.Type)]++
	if e.Error != "" && e.Type != histories.Invoke {
		c.errs[e.Error]++
	}
	if err := c.metaIn.check(e); err != nil {
		return err
	}
	if mine, err := c.meta.add(e); mine || err != nil {
		return err
	}
	switch {
	case e.Process == histories.NemesisProcess:
		return c.addNemesis(e)
	case e.Process == histories.ObserverProcess:
		return c.addObserve(e)
	case e.Process < 0:
		return fmt.Errorf("process %d: want >= 0, -1 (nemesis) or -2 (observer)", e.Process)
	}
	if err := c.addClient(e); err != nil {
		return err
	}
	return c.addShare(e)
}

// tp returns the number of a topic-partition, creating it.
func (c *checker) tp(topic []byte, p int32) int32 {
	t, ok := c.Topics[string(topic)]
	if !ok {
		t = int32(len(c.TPIdx))
		c.Topics[string(topic)] = t
		c.TPIdx = append(c.TPIdx, map[int32]int32{})
	}
	id, ok := c.TPIdx[t][p]
	if !ok {
		id = int32(len(c.TPs))
		c.TPIdx[t][p] = id
		c.TPs = append(c.TPs, model.NewTP(string(topic), p))
	}
	return id
}

// value returns the number of a value, creating it.
func (c *checker) value(v []byte) int32 {
	id, s, added := c.ValIdx.Intern(v, int32(len(c.Vals)))
	if added {
		c.Vals = append(c.Vals, model.Value{Str: s, Send: -1, Txn: -1, TP: -1, Off: -1})
	}
	return id
}

// valueAt is value for a record read at offset off of tp. The value
// first seen there (its send's ack, an earlier read) is nearly always the
// one read, and comparing it costs a fraction of a lookup in the table of
// every value, which was the largest cost of taking a read; the ids are
// the same (a value's string has one id).
func (c *checker) valueAt(tp int32, off int64, v []byte) int32 {
	if id, ok := c.TPs[tp].Offs.First(off); ok && c.Vals[id].Str == string(v) {
		return id
	}
	return c.value(v)
}

// saw records that value val was at offset off of tp, by any source.
func (c *checker) saw(tp int32, off int64, val int32) {
	c.TPs[tp].Offs.Add(off, val)
	vi := &c.Vals[val]
	switch {
	case vi.TP < 0:
		vi.TP, vi.Off = tp, off
	case vi.TP != tp || vi.Off != off:
		at := valAt{val, tpOff{TP: tp, Off: off}}
		if _, ok := c.dupSet[at]; ok {
			return
		}
		c.dupSet[at] = struct{}{}
		c.DupAt[val] = append(c.DupAt[val], at.at)
	}
}

// names numbers strings in the order first seen (group names,
// transactional ids): per-op structs hold the small id, not the string
// (model.Names).
type names = model.Names
