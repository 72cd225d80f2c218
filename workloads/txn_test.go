package workloads

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

func TestTransactionalID(t *testing.T) {
	cases := []struct {
		topic string
		i     int
		want  string
	}{
		{"kchaos", 0, "kchaos-kchaos-txn-0"},
		{"orders.v2", 12, "kchaos-orders.v2-txn-12"},
	}
	for _, tc := range cases {
		if got := TransactionalID(tc.topic, tc.i); got != tc.want {
			t.Errorf("TransactionalID(%q, %d) = %q, want %q", tc.topic, tc.i, got, tc.want)
		}
	}
	c := Config{Topic: "t", Producers: 2, Transactions: TxnConfig{Enabled: true}}
	if got := strings.Join(c.TransactionalIDs(), ","); got != "kchaos-t-txn-0,kchaos-t-txn-1" {
		t.Errorf("TransactionalIDs: %s", got)
	}
	if ids := (&Config{Producers: 2}).TransactionalIDs(); ids != nil {
		t.Errorf("TransactionalIDs without transactions: %v", ids)
	}
}

func TestTxnConfig(t *testing.T) {
	var c Config
	c.Transactions.Enabled = true
	c.Defaults()
	want := TxnConfig{Enabled: true, MinSends: 1, MaxSends: 4, AbortRate: 0.1, Timeout: Duration(10 * time.Second)}
	if c.Transactions != want || !c.Idempotent {
		t.Errorf("defaults: %+v idempotent %v, want %+v and idempotent", c.Transactions, c.Idempotent, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults with transactions: %v", err)
	}
	pi := c.ProducerInfo()
	if !pi.Transactional || !pi.Idempotent {
		t.Errorf("producer info %+v: want transactional and idempotent", pi)
	}
	if c.FinalReadIsolation() != histories.ReadCommitted {
		t.Errorf("final read isolation %s with transactions", c.FinalReadIsolation())
	}
	cases := []struct {
		name  string
		edit  func(*Config)
		paths []string
	}{
		{"ok", func(c *Config) { c.Transactions.Polls, c.Transactions.CrashRate = true, 0.2 }, nil},
		{"ok read_committed consumers", func(c *Config) { c.Isolation = "read_committed" }, nil},
		{"bad isolation", func(c *Config) { c.Isolation = "serializable" }, []string{"isolation"}},
		{"kafka-go", func(c *Config) { c.Driver = DriverKafkaGo }, []string{"transactions.enabled"}},
		{"kafka-go read_committed", func(c *Config) {
			c.Driver, c.Transactions = DriverKafkaGo, TxnConfig{}
			c.Idempotent = false
			c.Isolation = histories.ReadCommitted
		},
			[]string{"isolation"}},
		{"acks 1", func(c *Config) { c.Acks = AcksLeader }, []string{"acks"}},
		{"pipelined", func(c *Config) { c.MaxInFlight = 4 }, []string{"max_in_flight"}},
		{"key partitioning", func(c *Config) { c.Partitioning, c.Keys = ByKey, 4 }, []string{"partitioning"}},
		{"min sends", func(c *Config) { c.Transactions.MinSends = -1 }, []string{"transactions.min_sends"}},
		{"max below min", func(c *Config) { c.Transactions.MinSends, c.Transactions.MaxSends = 5, 2 }, []string{"transactions.max_sends"}},
		{"abort rate", func(c *Config) { c.Transactions.AbortRate = 1.5 }, []string{"transactions.abort_rate"}},
		{"crash rate", func(c *Config) { c.Transactions.CrashRate = -0.1 }, []string{"transactions.crash_rate"}},
		{"rates sum", func(c *Config) { c.Transactions.AbortRate, c.Transactions.CrashRate = 0.6, 0.6 }, []string{"transactions.crash_rate"}},
		{"timeout", func(c *Config) { c.Transactions.Timeout = Duration(time.Millisecond) }, []string{"transactions.timeout"}},
		{"hold not below the timeout", func(c *Config) { c.Transactions.Hold = Duration(c.Transactions.Timeout) }, []string{"transactions.hold"}},
		{"negative hold", func(c *Config) { c.Transactions.Hold = Duration(-time.Second) }, []string{"transactions.hold"}},
		{"settings while off", func(c *Config) { c.Transactions = TxnConfig{Polls: true}; c.Idempotent = false }, []string{"transactions.enabled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Transactions.Enabled = true
			c.Defaults()
			tc.edit(&c)
			wantProblemPaths(t, c.Validate(), tc.paths)
		})
	}
}

func TestTxnOutcome(t *testing.T) {
	timeout := context.DeadlineExceeded
	cases := []struct {
		name     string
		end      TxnEnd
		typ      histories.Type
		errName  string
		recreate bool
	}{
		{"committed", TxnEnd{CommitAsked: true}, histories.OK, "", false},
		{"intended abort", TxnEnd{AbortAsked: true}, histories.Fail, CauseAborted, false},
		{"intended abort failed", TxnEnd{AbortAsked: true, AbortErr: timeout}, histories.Fail, CauseTimeout, true},
		{"send error, abort ok", TxnEnd{StepErr: kerr.NotEnoughReplicas, AbortAsked: true}, histories.Fail, "NOT_ENOUGH_REPLICAS", false},
		{"send timeout, abort failed", TxnEnd{StepErr: timeout, AbortAsked: true, AbortErr: kerr.CoordinatorNotAvailable},
			histories.Fail, CauseTimeout, true},
		{"begin failed", TxnEnd{StepErr: errors.New("fatal producer id")}, histories.Fail, CauseUnknown, true},
		{"fenced send", TxnEnd{StepErr: fmt.Errorf("produce: %w", kerr.InvalidProducerEpoch)}, histories.Fail, "INVALID_PRODUCER_EPOCH", true},
		{"fenced zombie send", TxnEnd{StepErr: kerr.ProducerFenced, Superseded: true}, histories.Fail, "PRODUCER_FENCED", true},
		{"zombie commit fenced", TxnEnd{CommitAsked: true, CommitErr: kerr.ProducerFenced, Superseded: true},
			histories.Fail, "PRODUCER_FENCED", true},
		{"zombie commit succeeded", TxnEnd{CommitAsked: true, Superseded: true}, histories.OK, "", false},
		{"commit fenced, no successor known", TxnEnd{CommitAsked: true, CommitErr: kerr.ProducerFenced}, histories.Info, "PRODUCER_FENCED", true},
		{"commit timeout", TxnEnd{CommitAsked: true, CommitErr: timeout}, histories.Info, CauseTimeout, true},
		{"commit unknown error", TxnEnd{CommitAsked: true, CommitErr: kerr.UnknownServerError}, histories.Info, "UNKNOWN_SERVER_ERROR", true},
		{"commit not attempted", TxnEnd{CommitAsked: true, CommitErr: kerr.OperationNotAttempted}, histories.Fail, "OPERATION_NOT_ATTEMPTED", true},
		{"commit refused: topic recreated", TxnEnd{CommitAsked: true,
			CommitErr: fmt.Errorf("recreated: %w, %w", kerr.TransactionAbortable, kerr.UnknownTopicID)}, histories.Fail, "TRANSACTION_ABORTABLE", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			typ, name, recreate := TxnOutcome(tc.end)
			if typ != tc.typ || name != tc.errName || recreate != tc.recreate {
				t.Errorf("got %s %q recreate=%v, want %s %q recreate=%v", typ, name, recreate, tc.typ, tc.errName, tc.recreate)
			}
		})
	}
}

// fakeCoordinator is one transactional id's state: its current epoch.
// InitProducerId (ProducerID on a client without one) bumps it, and a
// client at an older epoch is fenced, as Kafka does.
type fakeCoordinator struct {
	mu     sync.Mutex
	epochs map[int]int16
	offs   offsets
}

type fakeTxnDriver struct {
	fakeDriver
	coord     fakeCoordinator
	commitErr func(n int) error // the n-th commit (0-based)
	commits   atomic.Int64
	created   atomic.Int64
}

func (d *fakeTxnDriver) NewTxnProducer(_ Config, _ []string, id int) (TxnProducer, error) {
	d.created.Add(1)
	return &fakeTxn{d: d, id: id, epoch: -1}, nil
}

type fakeTxn struct {
	d     *fakeTxnDriver
	id    int
	epoch int16
}

func (f *fakeTxn) Begin() error { return nil }
func (f *fakeTxn) ProducerID(context.Context) (int64, int16, error) {
	c := &f.d.coord
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.epoch < 0 {
		if c.epochs == nil {
			c.epochs = map[int]int16{}
		}
		c.epochs[f.id]++
		f.epoch = c.epochs[f.id]
	}
	return int64(f.id), f.epoch, nil
}
func (f *fakeTxn) fenced() bool {
	c := &f.d.coord
	c.mu.Lock()
	defer c.mu.Unlock()
	return f.epoch < c.epochs[f.id]
}
func (f *fakeTxn) Send(_ context.Context, m Message) (int64, error) {
	if f.fenced() {
		return -1, kerr.InvalidProducerEpoch
	}
	return f.d.coord.offs.take(m.Partition), nil
}
func (f *fakeTxn) Poll(context.Context, []int32) ([]histories.Record, error) { return nil, nil }
func (f *fakeTxn) End(_ context.Context, commit bool) error {
	if f.fenced() {
		return kerr.ProducerFenced
	}
	if commit && f.d.commitErr != nil {
		return f.d.commitErr(int(f.d.commits.Add(1) - 1))
	}
	return nil
}
func (f *fakeTxn) Close() {}

// TestTxnLoop runs the transactional loop on a fake coordinator: crashes
// end fail fenced and hand over to a new process with the client that
// fenced them; a commit whose answer was lost ends info and retires its
// process; every txn's invoke and completion agree on the sends.
func TestTxnLoop(t *testing.T) {
	d := &fakeTxnDriver{commitErr: func(n int) error {
		if n%7 == 3 {
			return context.DeadlineExceeded
		}
		return nil
	}}
	cfg := Config{Producers: 2, Partitions: 3, Transactions: TxnConfig{Enabled: true, Polls: true,
		AbortRate: 0.2, CrashRate: 0.3}}
	w, rec, buf := newTestWorkload(t, cfg, d)
	w.budget = new(atomic.Int64)
	w.budget.Store(200)
	if _, err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	evs := readBack(t, rec, buf)
	invokes := map[int]histories.TxnValue{}
	lastTxn := map[int]histories.Type{}
	n := map[string]int{}
	for _, e := range evs {
		if e.F != histories.FTxn {
			t.Fatalf("unexpected event %+v", e)
		}
		if e.Type == histories.Invoke {
			if lastTxn[e.Process] == histories.Info {
				t.Fatalf("process %d invoked after info", e.Process)
			}
			var v histories.TxnValue
			_ = e.Decode(&v)
			invokes[e.Process] = v
			continue
		}
		var v txnDone
		_ = e.Decode(&v)
		lastTxn[e.Process] = e.Type
		inv := invokes[e.Process]
		if v.TransactionalID != inv.TransactionalID || v.Intent != inv.Intent || v.ProducerEpoch == nil {
			t.Errorf("completion %s does not repeat invoke %+v", e.Value, inv)
		}
		if len(v.Sends()) > len(inv.Sends()) || v.EndInvoked == nil && !v.Crashed {
			t.Errorf("completion %s vs invoke %+v", e.Value, inv)
		}
		switch {
		case v.Crashed:
			n["crashed"]++
			if e.Type != histories.Fail || (e.Error != "INVALID_PRODUCER_EPOCH" && e.Error != "PRODUCER_FENCED") {
				t.Errorf("crashed txn %s %q: want fail fenced", e.Type, e.Error)
			}
			lastTxn[e.Process] = histories.Info // must not invoke again
		case e.Type == histories.OK:
			n["ok"]++
			for _, s := range v.Sends() {
				if s.Offset == nil {
					t.Errorf("ok txn send without offset: %s", e.Value)
				}
			}
		case e.Type == histories.Info:
			n["info"]++
			if e.Error != CauseTimeout {
				t.Errorf("info txn error %q", e.Error)
			}
		case e.Error == CauseAborted:
			n["aborted"]++
			if v.Intent != histories.TxnAbort {
				t.Errorf("aborted txn with intent %s", v.Intent)
			}
		default:
			t.Errorf("unexpected %s %q: %s", e.Type, e.Error, e.Value)
		}
	}
	for _, k := range []string{"ok", "info", "aborted", "crashed"} {
		if n[k] == 0 {
			t.Errorf("no %s txn in %v", k, n)
		}
	}
	if st.Txns != 200 || st.TxnCommitted != int64(n["ok"]) || st.TxnUnknown != int64(n["info"]) ||
		st.TxnCrashes != int64(n["crashed"]) || st.TxnFenced != int64(n["crashed"]) ||
		st.TxnAborted != int64(n["aborted"]+n["crashed"]) || st.InFlight != 0 {
		t.Errorf("stats %+v vs history %v", st, n)
	}
	// Each crash makes a successor, each info a fresh client before the
	// slot's next txn (not after its last); 2 to start.
	if got, want := d.created.Load(), int64(2+n["crashed"]+n["info"]); got > want || got < want-2 {
		t.Errorf("%d clients created, want %d (or up to 2 fewer)", got, want)
	}
}
