package txn

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// offsets hands out increasing offsets per partition.
type offsets struct {
	mu   sync.Mutex
	next map[int32]int64
}

func (o *offsets) take(p int32) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.next == nil {
		o.next = map[int32]int64{}
	}
	v := o.next[p]
	o.next[p]++
	return v
}

// fakeTxnDriver hands out transactional clients of a fake coordinator (no
// plain producers or consumers: the run has none).
// fakeCoordinator is one transactional id's state: its current epoch.
// InitProducerId (ProducerID on a client without one) bumps it, and a
// client at an older epoch is fenced, as Kafka does.
type fakeCoordinator struct {
	mu     sync.Mutex
	epochs map[int]int16
	offs   offsets
}

type fakeTxnDriver struct {
	coord     fakeCoordinator
	commitErr func(n int) error // the n-th commit (0-based)
	commits   atomic.Int64
	created   atomic.Int64
}

func (d *fakeTxnDriver) Name() string                                   { return "fake" }
func (d *fakeTxnDriver) Refuse(workloads.Config) []workloads.FieldError { return nil }
func (d *fakeTxnDriver) NewProducer(workloads.Config, []string, int) (workloads.Producer, error) {
	return nil, errors.New("fake: no plain producer")
}
func (d *fakeTxnDriver) NewConsumer(workloads.Config, []string, int) (workloads.Consumer, error) {
	return nil, errors.New("fake: no consumer")
}

func (d *fakeTxnDriver) NewTxnProducer(_ workloads.Config, _ []string, id int) (workloads.TxnProducer, error) {
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
func (f *fakeTxn) Send(_ context.Context, m workloads.Message) (int64, error) {
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
	cfg := workloads.Config{Producers: 2, Partitions: 3, Transactions: workloads.TxnConfig{Enabled: true, Polls: true,
		AbortRate: new(0.2), CrashRate: 0.3}}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	w, err := workloads.NewWithDriver(cfg, d, []string{"fake:9092"}, rec, 200) // 200 transactions
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	evs := workloadstest.ReadBack(t, rec, &buf)
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
			if e.Error != workloads.CauseTimeout {
				t.Errorf("info txn error %q", e.Error)
			}
		case e.Error == workloads.CauseAborted:
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
