package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestStopProducers: after StopProducers no send is invoked any more, every
// send it found in flight completes, and the run itself goes on until
// Stop; a second call returns at once.
func TestStopProducers(t *testing.T) {
	d := &crashDriver{}
	w, rec, buf := newTestWorkload(t, Config{Producers: 2, MaxInFlight: 2, Partitions: 1, Idempotent: true, Retries: 3,
		Duration: Duration(time.Minute)}, d)
	done := make(chan error, 1)
	go func() {
		_, err := w.Run(context.Background())
		done <- err
	}()
	waitFor(t, func() bool { return w.Stats().Acked > 100 })
	details, err := w.StopProducers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stoppedAt := int64(rec.Elapsed())
	acked := w.Stats().Acked
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the run ended with the producers: %v", err)
	default:
	}
	if got := w.Stats().Acked; got != acked {
		t.Errorf("acked went on after StopProducers: %d -> %d", acked, got)
	}
	if _, err := w.StopProducers(context.Background()); err != nil {
		t.Errorf("second StopProducers: %v", err)
	}
	w.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if details["producers"] != 2 || details["acked"] == nil {
		t.Errorf("details %v", details)
	}
	open := map[int]bool{}
	for _, e := range readBack(t, rec, buf) {
		if e.F != histories.FSend {
			continue
		}
		if e.Type == histories.Invoke {
			if e.Time > stoppedAt {
				t.Errorf("send invoked after StopProducers returned: %+v", e)
			}
			open[e.Process] = true
		} else {
			delete(open, e.Process)
		}
	}
	if len(open) > 0 {
		t.Errorf("sends never completed: %v", open)
	}
}
