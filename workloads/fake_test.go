package workloads

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// fakeDriver hands out scripted producers and consumers, for unit tests of
// the loops that own the history.
type fakeDriver struct {
	send      func(n int, m Message) (int64, error) // the n-th send overall (0-based)
	consumer  func() Consumer
	calls     atomic.Int64
	producers atomic.Int64
}

func (d *fakeDriver) Name() string               { return "fake" }
func (d *fakeDriver) Refuse(Config) []FieldError { return nil }
func (d *fakeDriver) NewProducer(Config, []string, int) (Producer, error) {
	d.producers.Add(1)
	return &fakeProducer{d: d}, nil
}
func (d *fakeDriver) NewConsumer(Config, []string, int) (Consumer, error) { return d.consumer(), nil }

type fakeProducer struct{ d *fakeDriver }

func (p *fakeProducer) Send(_ context.Context, m Message) (int64, error) {
	return p.d.send(int(p.d.calls.Add(1)-1), m)
}
func (p *fakeProducer) Close() {}

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

// newTestWorkload builds a workload on a fake driver writing to a buffer.
func newTestWorkload(t *testing.T, cfg Config, d Driver) (*Workload, *histories.Recorder, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	w := newWorkload(cfg, d, []string{"fake:9092"}, rec)
	return w, rec, &buf
}

// readBack closes the recorder and reads the history with the histories
// reader: what a checker would see.
func readBack(t *testing.T, rec *histories.Recorder, buf *bytes.Buffer) []histories.Event {
	t.Helper()
	return workloadstest.ReadBack(t, rec, buf)
}

// fakeView is a scripted cluster for the observer and the final read.
type fakeView struct {
	mu       sync.Mutex
	parts    []admin.PartitionState
	hw       map[int32]int64
	leo      map[int32]map[int32]int64
	failNext int            // Describe calls to fail
	down     map[int32]bool // brokers that do not answer DescribeFrom
	from     []int32        // brokers asked by DescribeFrom, in order
	open     map[int32][]histories.OpenTxn
	at       map[int32]map[int64]int64 // partition -> ListOffsets timestamp -> offset
}

func (v *fakeView) set(f func(v *fakeView)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f(v)
}

func (v *fakeView) Describe(context.Context, string) ([]admin.PartitionState, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.failNext > 0 {
		v.failNext--
		return nil, context.DeadlineExceeded
	}
	out := make([]admin.PartitionState, len(v.parts))
	for i, p := range v.parts {
		p.ISR = append([]int32{}, p.ISR...)
		out[i] = p
	}
	return out, nil
}

func (v *fakeView) DescribeFrom(ctx context.Context, broker int32, topic string) ([]admin.PartitionState, error) {
	v.mu.Lock()
	down := v.down[broker]
	v.from = append(v.from, broker)
	v.mu.Unlock()
	if down {
		return nil, context.DeadlineExceeded
	}
	return v.Describe(ctx, topic)
}

func (v *fakeView) HighWatermark(_ context.Context, _ int32, _ string, p int32) (int64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.hw[p], nil
}

func (v *fakeView) OffsetsAt(_ context.Context, _ int32, _ string, p int32, ts ...int64) map[int64]int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[int64]int64{}
	for _, t := range ts {
		if o, ok := v.at[p][t]; ok {
			out[t] = o
		}
	}
	return out
}

func (v *fakeView) OpenTxns(_ context.Context, _ string, p int32) ([]histories.OpenTxn, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]histories.OpenTxn(nil), v.open[p]...), nil
}

func (v *fakeView) ReplicaLogEndOffsets(_ context.Context, _ string, ps []int32, _ []int32) map[int32]map[int32]int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[int32]map[int32]int64{}
	for _, p := range ps {
		if m, ok := v.leo[p]; ok {
			out[p] = map[int32]int64{}
			for b, o := range m {
				out[p][b] = o
			}
		}
	}
	return out
}
