package workloads

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// crashDriver's producers ack at once, except while hold is set: then a
// send waits for its client's Close and answers ok (the worst case: an
// ack that comes back after the crash, which the crashed process never
// learns). Each client has its own producer id.
type crashDriver struct {
	offs    offsets
	hold    atomic.Bool
	nextID  atomic.Int64
	opened  atomic.Int64
	waiting atomic.Int64
}

func (d *crashDriver) Name() string               { return "fake" }
func (d *crashDriver) Refuse(Config) []FieldError { return nil }
func (d *crashDriver) NewProducer(Config, []string, int) (Producer, error) {
	d.opened.Add(1)
	return &crashProducer{d: d, id: 1000 + d.nextID.Add(1), closed: make(chan struct{})}, nil
}
func (d *crashDriver) NewConsumer(Config, []string, int) (Consumer, error) { return nil, nil }

type crashProducer struct {
	d      *crashDriver
	id     int64
	once   sync.Once
	closed chan struct{}
}

func (p *crashProducer) Send(ctx context.Context, m Message) (int64, error) {
	if p.d.hold.Load() {
		p.d.waiting.Add(1)
		defer p.d.waiting.Add(-1)
	wait:
		for p.d.hold.Load() {
			select {
			case <-p.closed:
				break wait
			case <-ctx.Done():
				return -1, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
	return p.d.offs.take(m.Partition), nil
}
func (p *crashProducer) Close() { p.once.Do(func() { close(p.closed) }) }
func (p *crashProducer) ProducerID(context.Context) (int64, int16, error) {
	return p.id, 0, nil
}

// TestCrashProducer: producer 1's client (2 slots) is crashed with both
// sends in flight; those complete info `crashed` although the client
// answered ok after the crash; the slots go on as new processes through a
// new client with a new producer id, after the down time; producer 0 is
// untouched.
func TestCrashProducer(t *testing.T) {
	d := &crashDriver{}
	w, rec, buf := newTestWorkload(t, Config{Producers: 2, MaxInFlight: 2, Partitions: 1, Idempotent: true, Retries: 3,
		Duration: Duration(time.Minute)}, d)
	if _, err := w.CrashProducer(context.Background(), 0, 0); err != errNotProducing {
		t.Errorf("crash before Run: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := w.Run(ctx)
		done <- err
	}()
	waitFor(t, func() bool { return w.Stats().Acked > 100 })
	d.hold.Store(true)
	waitFor(t, func() bool { return d.waiting.Load() == 4 })
	// Producer 0's sends are held too: the hold's end lets them go.
	begin := time.Now()
	details, err := w.CrashProducer(context.Background(), 1, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	d.hold.Store(false)
	waitFor(t, func() bool { return w.Stats().Acked > 300 })
	w.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	evs := readBack(t, rec, buf)
	if took < 200*time.Millisecond || fmt.Sprint(details["producer_id_before"]) != "1002" || fmt.Sprint(details["producer_id_after"]) != "1003" ||
		details["in_flight"] != int64(2) || d.opened.Load() != 3 {
		t.Errorf("crash took %s, details %v, clients opened %d", took, details, d.opened.Load())
	}
	before, _ := details["processes_before"].([]int)
	after, _ := details["processes_after"].([]int)
	if len(before) != 2 || len(after) != 2 || slices.ContainsFunc(after, func(p int) bool { return slices.Contains(before, p) }) {
		t.Fatalf("processes before %v after %v", before, after)
	}
	crashed, okAfter := 0, map[int]int{}
	for _, e := range evs {
		if e.F != histories.FSend || e.Type == histories.Invoke {
			continue
		}
		if slices.Contains(before, e.Process) && e.Type == histories.Info {
			if e.Error != CauseCrashed || !strings.Contains(string(e.Value), "the client said: ok") {
				t.Errorf("crashed send %+v", e)
			}
			crashed++
		}
		if slices.Contains(before, e.Process) && e.Type == histories.OK && e.Time > int64(begin.Sub(rec.Start())) {
			t.Errorf("the crashed process got an ok after the crash: %+v", e)
		}
		if slices.Contains(after, e.Process) && e.Type == histories.OK {
			okAfter[e.Process]++
		}
	}
	if crashed != 2 || len(okAfter) != 2 {
		t.Errorf("crashed sends %d (want the 2 in flight), ok sends of the new processes %v", crashed, okAfter)
	}
	st := w.Stats()
	if st.Errors[CauseCrashed] != 2 {
		t.Errorf("errors %v", st.Errors)
	}
	if _, err := w.CrashProducer(context.Background(), 1, 0); err != errNotProducing {
		t.Errorf("crash after Run: %v", err)
	}
}

func TestCrashProducerRefusals(t *testing.T) {
	w, _, _ := newTestWorkload(t, Config{Producers: 1, Duration: Duration(time.Minute)}, &crashDriver{})
	w.pcs = w.newProducerClients([]Producer{&crashProducer{d: &crashDriver{}, closed: make(chan struct{})}})
	if _, err := w.CrashProducer(context.Background(), 1, 0); err == nil || !strings.Contains(err.Error(), "producer 1: the workload has producers 0..0") {
		t.Errorf("crash of producer 1 of 1: %v", err)
	}
	tw, _, _ := newTestWorkload(t, Config{Producers: 1, Duration: Duration(time.Minute), Transactions: TxnConfig{Enabled: true}}, &crashDriver{})
	if _, err := tw.CrashProducer(context.Background(), 0, 0); err == nil || !strings.Contains(err.Error(), "transactions.crash_rate") {
		t.Errorf("crash of a transactional producer: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
