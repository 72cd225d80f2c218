//go:build integration

package workloads

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/histories"
)

// TestIntegration runs, per driver, a 30 s acks=all workload on 3 brokers
// (topic RF 3, min.insync.replicas 2, two partitions whose replicas put
// broker 2 last so it is never the leader) with 3 producers, 2 consumers
// and the observer, pausing broker 2 from ~8 s to ~18 s. It reads the
// recorded history.jsonl back and checks:
//   - every ok send is in the final read of its partition, at its offset,
//     with its value; both final reads completed;
//   - polls saw nothing that contradicts the final read;
//   - the observe events show each partition's ISR shrink without broker 2
//     and later rejoin with it.
func TestIntegration(t *testing.T) {
	for _, drv := range []string{DriverFranz, DriverKafkaGo} {
		t.Run(drv, func(t *testing.T) { integration(t, drv) })
	}
}

func integration(t *testing.T, drv string) {
	c, adm := sharedAdmin(t)
	topic := "wl-" + drv
	createTopic(t, adm, topic, [][]int32{{0, 1, 2}, {1, 0, 2}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	path, rec := newHistory(t, t.TempDir())
	obs := NewObserver(adm, rec, topic, ObserverOptions{})
	obs.Start(ctx)
	w, err := New(Config{Driver: drv, Topic: topic, Partitions: 2, Producers: 3, Acks: AcksAll,
		RequestTimeout: Duration(3 * time.Second), Consumers: 2,
		Duration: Duration(30 * time.Second), FinalReadTimeout: Duration(60 * time.Second)},
		c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}

	// The fault: pause follower 2 mid-run, resume it 10 s later.
	faultDone := pauseFollowerMidRun(ctx, t, c)
	logProgress(ctx, t, w, true)
	began := time.Now()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := <-faultDone; err != nil {
		t.Fatalf("pause/unpause broker 2: %v", err)
	}
	t.Logf("run took %s: %+v", time.Since(began).Round(100*time.Millisecond), st)
	// Heal: broker 2 back in every ISR before the final read.
	if err := waitISR(ctx, adm, topic, []int32{0, 1, 2}, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let the observer sample the rejoin
	fr, err := w.FinalRead(ctx, adm)
	if err != nil {
		t.Fatalf("final read: %v", err)
	}
	obs.Stop()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("final read: %+v", fr)
	samples, recorded, failures := obs.Counts()
	t.Logf("observer: %d samples, %d events, %d failed samples", samples, recorded, failures)

	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("read history: %v (torn %v)", err, torn)
	}
	checkHistory(t, evs, topic, 2)
	if st.Acked < 200 {
		t.Errorf("only %d acked sends in 30 s", st.Acked)
	}
	if st.Polls == 0 || st.PolledRecords == 0 {
		t.Errorf("consumers polled %d times, %d records", st.Polls, st.PolledRecords)
	}
}

// checkHistory checks a recorded history without the checker package.
func checkHistory(t *testing.T, evs []histories.Event, topic string, partitions int) {
	t.Helper()
	type at struct {
		p int32
		o int64
	}
	final := map[at]histories.Record{}
	complete := map[int32]bool{}
	var okSends []histories.SendValue
	var polled []histories.Record
	isr := map[int32][][]int32{} // partition -> distinct successive ISRs observed
	isrAt := map[int32][]string{}
	pollFails := map[string]int{}
	for _, e := range evs {
		switch {
		case e.F == histories.FSend && e.Type == histories.OK:
			var v histories.SendValue
			if err := e.Decode(&v); err != nil || v.Offset == nil {
				t.Fatalf("ok send %s: %v", e.Value, err)
			}
			okSends = append(okSends, v)
		case e.F == histories.FPoll && e.Type == histories.Fail:
			pollFails[e.Error]++
		case e.F == histories.FPoll && e.Type == histories.OK:
			var v histories.ReadResult
			_ = e.Decode(&v)
			polled = append(polled, v.Records...)
		case e.F == histories.FFinalRead && e.Type == histories.OK:
			var v histories.ReadResult
			_ = e.Decode(&v)
			for _, p := range histories.SortedPartitions(v.EndOffsets) {
				complete[p] = true
			}
			for _, r := range v.Records {
				if r.LeaderEpoch < 0 {
					t.Errorf("final read record %d:%d without a leader epoch", r.Partition, r.Offset)
				}
				final[at{r.Partition, r.Offset}] = r
			}
		case e.F == histories.FObserve:
			var v histories.ObserveValue
			_ = e.Decode(&v)
			seq := isr[v.Partition]
			if len(seq) == 0 || !slices.Equal(seq[len(seq)-1], v.ISR) {
				isr[v.Partition] = append(seq, v.ISR)
				isrAt[v.Partition] = append(isrAt[v.Partition], fmt.Sprintf("%.1fs:%v", time.Duration(e.Time).Seconds(), v.ISR))
			}
		}
	}
	for p := int32(0); p < int32(partitions); p++ {
		if !complete[p] {
			t.Errorf("no completed final read of partition %d", p)
		}
	}
	lost := 0
	for _, s := range okSends {
		r, ok := final[at{s.Partition, *s.Offset}]
		if !ok || r.Value != s.Value {
			lost++
			if lost <= 5 {
				t.Errorf("ok send %s at %d:%d: final read has %q", s.Value, s.Partition, *s.Offset, r.Value)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d ok sends not in the final read at their offset", lost, len(okSends))
	}
	for _, r := range polled {
		if f, ok := final[at{r.Partition, r.Offset}]; !ok || f.Value != r.Value {
			t.Errorf("polled %q at %d:%d, final read has %q", r.Value, r.Partition, r.Offset, f.Value)
			break
		}
	}
	for p := int32(0); p < int32(partitions); p++ {
		trace := fmt.Sprint(isrAt[p])
		full, shrunk := []int32{0, 1, 2}, []int32{0, 1}
		i := slices.IndexFunc(isr[p], func(s []int32) bool { return slices.Equal(s, full) })
		j := -1
		if i >= 0 {
			j = slices.IndexFunc(isr[p][i:], func(s []int32) bool { return slices.Equal(s, shrunk) })
		}
		k := -1
		if j >= 0 {
			k = slices.IndexFunc(isr[p][i+j:], func(s []int32) bool { return slices.Equal(s, full) })
		}
		if k < 0 {
			t.Errorf("partition %d: observed ISRs %s: want [0 1 2], then [0 1], then [0 1 2]", p, trace)
		} else {
			t.Logf("partition %d: observed ISRs %s", p, trace)
		}
	}
	t.Logf("history: %d events, %d ok sends, %d polled records, %d final-read records, failed polls %v",
		len(evs), len(okSends), len(polled), len(final), pollFails)
	failed := 0
	for _, n := range pollFails {
		failed += n
	}
	if polls := countF(evs, histories.FPoll); failed > polls/100 {
		t.Errorf("%d of %d polls failed: %v", failed, polls, pollFails)
	}
}

// countF counts the completed ops named f.
func countF(evs []histories.Event, f string) int {
	n := 0
	for _, e := range evs {
		if e.F == f && e.Type != histories.Invoke {
			n++
		}
	}
	return n
}

// pauseFollowerMidRun pauses broker 2 8 s into the run and resumes it 10 s
// later; the channel gives the fault's error once it is over (the run's
// ISR shrinks and grows back while clients keep sending).
func pauseFollowerMidRun(ctx context.Context, t *testing.T, c *docker.Cluster) <-chan error {
	t.Cleanup(func() { _ = c.Resume(context.Background(), 2) })
	faultDone := make(chan error, 1)
	go func() {
		select {
		case <-time.After(8 * time.Second):
		case <-ctx.Done():
		}
		if err := c.Pause(ctx, 2); err != nil {
			faultDone <- err
			return
		}
		time.Sleep(10 * time.Second)
		faultDone <- c.Resume(ctx, 2)
	}()
	return faultDone
}

// logProgress logs the workload's progress every 5 s (with its recent
// rate when rate is set).
func logProgress(ctx context.Context, t *testing.T, w *Workload, rate bool) {
	progress := w.Progress(ctx, 5*time.Second)
	go func() {
		for s := range progress {
			if rate {
				t.Logf("%5.1fs: %d sends, %d acked, %d failed, %d info, %.0f ops/s, %d polls, errors %v",
					s.Elapsed.Seconds(), s.Sends, s.Acked, s.Failed, s.Indeterminate, s.RecentOpsPerSec, s.Polls, s.Errors)
				continue
			}
			t.Logf("%5.1fs: %d sends, %d acked, %d failed, %d info, %d polls, errors %v",
				s.Elapsed.Seconds(), s.Sends, s.Acked, s.Failed, s.Indeterminate, s.Polls, s.Errors)
		}
	}()
}
