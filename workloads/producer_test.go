package workloads

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
)

// runSends runs the producer loops for exactly n sends.
func runSends(t *testing.T, w *Workload, n int64) Stats {
	t.Helper()
	w.budget = new(atomic.Int64)
	w.budget.Store(n)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return st
}

// procState follows each process through the history.
type procState struct {
	open    bool
	retired bool
	sends   int
}

func TestProducerRetiresProcessAfterInfo(t *testing.T) {
	// One process, one op at a time; the 3rd and 6th sends are
	// indeterminate, the 2nd definitely failed.
	var offs offsets
	script := func(n int, m Message) (int64, error) {
		switch n {
		case 1:
			return -1, kerr.NotEnoughReplicas
		case 2:
			return -1, kerr.RequestTimedOut
		case 5:
			return -1, kgo.ErrRecordRetries
		}
		return offs.take(m.Partition), nil
	}
	w, rec, buf := newTestWorkload(t, Config{Producers: 1, Partitions: 2, Duration: Duration(time.Minute)},
		&fakeDriver{send: script})
	st := runSends(t, w, 8)
	evs := readBack(t, rec, buf)

	if st.Sends != 8 || st.Acked != 5 || st.Failed != 1 || st.Indeterminate != 2 {
		t.Errorf("stats %+v: want 8 sends, 5 acked, 1 failed, 2 indeterminate", st)
	}
	if st.Errors["NOT_ENOUGH_REPLICAS"] != 1 || st.Errors["REQUEST_TIMED_OUT"] != 1 || st.Errors[CauseRetriesExhausted] != 1 {
		t.Errorf("errors by name: %v", st.Errors)
	}
	var pids []int
	var types []histories.Type
	procs := map[int]*procState{}
	values := map[string]bool{}
	for _, e := range evs {
		if e.F != histories.FSend {
			continue
		}
		ps := procs[e.Process]
		if ps == nil {
			ps = &procState{}
			procs[e.Process] = ps
			pids = append(pids, e.Process)
		}
		if ps.retired {
			t.Fatalf("event %d: process %d acts after its op ended info", e.Index, e.Process)
		}
		var v histories.SendValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case histories.Invoke:
			if ps.open {
				t.Fatalf("event %d: process %d invokes with an op open", e.Index, e.Process)
			}
			ps.open = true
			ps.sends++
			if values[v.Value] {
				t.Errorf("value %s sent twice", v.Value)
			}
			values[v.Value] = true
			if v.Offset != nil {
				t.Errorf("invoke with an offset: %s", e.Value)
			}
		default:
			ps.open = false
			types = append(types, e.Type)
			if e.Type == histories.Info {
				ps.retired = true
			}
			if (e.Type == histories.OK) != (v.Offset != nil) {
				t.Errorf("event %d: %s with offset %v", e.Index, e.Type, v.Offset)
			}
			if e.Type != histories.OK && e.Error == "" {
				t.Errorf("event %d: %s without an error name", e.Index, e.Type)
			}
		}
	}
	wantTypes := []histories.Type{histories.OK, histories.Fail, histories.Info, histories.OK,
		histories.OK, histories.Info, histories.OK, histories.OK}
	if len(types) != len(wantTypes) {
		t.Fatalf("completions %v, want %v", types, wantTypes)
	}
	for i := range types {
		if types[i] != wantTypes[i] {
			t.Fatalf("completions %v, want %v", types, wantTypes)
		}
	}
	// fail keeps the process; each info hands the slot a fresh one.
	if len(pids) != 3 || procs[pids[0]].sends != 3 || procs[pids[1]].sends != 3 || procs[pids[2]].sends != 2 {
		t.Errorf("processes %v with sends %d/%d/%d: want 3 processes doing 3, 3, 2 sends",
			pids, procs[pids[0]].sends, procs[pids[1]].sends, procs[pids[2]].sends)
	}
}

func TestPipelinedSlotsAreProcesses(t *testing.T) {
	// 2 clients x 8 slots; every 7th send is indeterminate. Each slot must
	// be a process with at most one op open; the recorder refuses anything
	// else, so Run would fail.
	var offs offsets
	inflight, peak := atomic.Int64{}, atomic.Int64{}
	script := func(n int, m Message) (int64, error) {
		cur := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		if n%7 == 6 {
			return -1, context.DeadlineExceeded
		}
		return offs.take(m.Partition), nil
	}
	d := &fakeDriver{send: script}
	w, rec, buf := newTestWorkload(t, Config{Producers: 2, MaxInFlight: 8, Partitions: 3}, d)
	st := runSends(t, w, 400)
	evs := readBack(t, rec, buf)
	if st.Sends != 400 || st.Acked+st.Indeterminate != 400 || st.InFlight != 0 {
		t.Errorf("stats %+v", st)
	}
	if d.producers.Load() != 2 {
		t.Errorf("%d producer clients, want 2", d.producers.Load())
	}
	if peak.Load() < 8 {
		t.Errorf("peak %d sends in flight: pipelining does not pipeline", peak.Load())
	}
	open := map[int]bool{}
	retired := map[int]bool{}
	perPartition := map[int32]int{}
	for _, e := range evs {
		if retired[e.Process] {
			t.Fatalf("process %d acts after info", e.Process)
		}
		if e.Type == histories.Invoke {
			if open[e.Process] {
				t.Fatalf("process %d has two ops open", e.Process)
			}
			open[e.Process] = true
			var v histories.SendValue
			_ = e.Decode(&v)
			perPartition[v.Partition]++
			continue
		}
		open[e.Process] = false
		retired[e.Process] = e.Type == histories.Info
	}
	if len(perPartition) != 3 || perPartition[0] < 130 || perPartition[2] < 130 {
		t.Errorf("round robin spread %v over 3 partitions", perPartition)
	}
}

func TestProducerAcksZeroHasNoOffset(t *testing.T) {
	d := &fakeDriver{send: func(int, Message) (int64, error) { return 0, nil }}
	w, rec, buf := newTestWorkload(t, Config{Producers: 1, Acks: AcksNone}, d)
	st := runSends(t, w, 3)
	if st.AckedNoOffset != 3 || st.Acked != 0 {
		t.Errorf("stats %+v: want 3 acked without offset", st)
	}
	for _, e := range readBack(t, rec, buf) {
		var v histories.SendValue
		_ = e.Decode(&v)
		if e.Type == histories.OK && v.Offset != nil {
			t.Errorf("acks=0 ok with offset %d", *v.Offset)
		}
	}
}

func TestProducerRecorderErrorStopsRun(t *testing.T) {
	d := &fakeDriver{send: func(int, Message) (int64, error) { return 1, nil }}
	w, rec, _ := newTestWorkload(t, Config{Producers: 1}, d)
	_ = rec.Close() // every Invoke now fails: the history is broken
	w.budget = new(atomic.Int64)
	w.budget.Store(5)
	_, err := w.Run(context.Background())
	if !errors.Is(err, histories.ErrClosed) {
		t.Errorf("Run with a closed recorder: %v, want ErrClosed", err)
	}
}

func TestSendValueNames(t *testing.T) {
	for _, tc := range []struct {
		pid, seq int
		want     string
	}{{3, 42, "p3-000042"}, {0, 0, "p0-000000"}, {12, 1234567, "p12-1234567"}} {
		if got := SendValueName(tc.pid, tc.seq); got != tc.want {
			t.Errorf("SendValueName(%d, %d) = %s, want %s", tc.pid, tc.seq, got, tc.want)
		}
	}
}

func TestStopDrainsCancelAborts(t *testing.T) {
	// Every send takes 200 ms. Stop lets the sends in flight finish (ok);
	// canceling the context cancels them (info, canceled).
	slow := func(ctx context.Context) (int64, error) {
		select {
		case <-time.After(200 * time.Millisecond):
			return 1, nil
		case <-ctx.Done():
			return -1, ctx.Err()
		}
	}
	for _, tc := range []struct {
		name    string
		end     func(w *Workload, cancel context.CancelFunc)
		acked   int64
		aborted int64
	}{
		{"stop", func(w *Workload, _ context.CancelFunc) { w.Stop() }, 4, 0},
		{"cancel", func(_ *Workload, cancel context.CancelFunc) { cancel() }, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, rec, buf := newTestWorkload(t, Config{Producers: 4}, &ctxDriver{send: slow})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				time.Sleep(50 * time.Millisecond)
				tc.end(w, cancel)
			}()
			st, err := w.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Sends != 4 || st.Acked != tc.acked || st.Indeterminate != tc.aborted || st.Errors[CauseCanceled] != tc.aborted {
				t.Errorf("stats %+v: want 4 sends, %d acked, %d canceled", st, tc.acked, tc.aborted)
			}
			readBack(t, rec, buf)
		})
	}
}

// ctxDriver is a fakeDriver whose sends see their context.
type ctxDriver struct {
	fakeDriver
	send func(ctx context.Context) (int64, error)
}

func (d *ctxDriver) NewProducer(Config, []string, int) (Producer, error) { return ctxProducer{d}, nil }

type ctxProducer struct{ d *ctxDriver }

func (p ctxProducer) Send(ctx context.Context, _ Message) (int64, error) { return p.d.send(ctx) }
func (p ctxProducer) Close()                                             {}
