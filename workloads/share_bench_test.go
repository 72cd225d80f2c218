//go:build integration

package workloads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// BenchmarkShareAccept measures what recording costs a share group: the
// share workload's accepted records per second (every delivery and ack
// written to a history file) against a bare franz-go share consumer that
// records nothing, in the same run.
//
// Both are share groups of two members on one topic (3 partitions, RF 3)
// that a producer filled beforehand (KCHAOS_BENCH_SHARE_RECORDS, default
// 400000 records), so each group consumes from its own backlog and the
// brokers, not the producers, set the pace. They run side by side, so the
// machine's drift falls on both alike (the reason BenchmarkProduce
// toggles). The bare consumer does what a workload member does minus the
// history: poll up to 50 records (500 ms fetch wait), accept each, flush
// the acks, count the records whose partition's ack result was ok, with
// the workload's client options (franzCommon). Both sleep 1 µs per poll
// for processing (a workload's 0 means 20 ms), and the workload accepts
// every record (ack mix accept only). After a warm-up (KCHAOS_BENCH_WARMUP, default 20s) it counts
// for KCHAOS_BENCH_MEASURE (default 30s); a group that ran out of backlog
// inside the window fails the benchmark (the figure would be the
// producer's).
//
// Metrics: accepted/s (workload, recorded), baseline-accepted/s (bare),
// overhead-% = (baseline - recorded) / baseline * 100. Without Docker the
// benchmark skips. The timing loop ignores b.N: it runs once.
func BenchmarkShareAccept(b *testing.B) {
	testenv.DockerOrSkip(b)
	c := sharedCluster(b)
	adm, err := c.Admin()
	if err != nil {
		b.Fatal(err)
	}
	defer adm.Close()
	topic := "bench-share-" + time.Now().Format("150405.000")
	createTopic(b, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}})
	records := 400000
	if n, err := strconv.Atoi(os.Getenv("KCHAOS_BENCH_SHARE_RECORDS")); err == nil && n > 0 {
		records = n
	}
	warmup := envDuration("KCHAOS_BENCH_WARMUP", 20*time.Second)
	measure := envDuration("KCHAOS_BENCH_MEASURE", 30*time.Second)
	fill(b, c.Bootstrap(), topic, records)

	file, err := histories.Create(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	rec := &acceptCounter{Recorder: file}
	// One producer at one send a second: the workload needs one, and it
	// adds a few dozen records to the backlog.
	w, err := New(Config{Driver: DriverFranz, Topic: topic, Partitions: 3, Producers: 1, Rate: 1, Acks: AcksAll,
		RequestTimeout: Duration(5 * time.Second), Duration: Duration(warmup + measure + 2*time.Second),
		Shares: ShareConfig{Group: "bench-workload", Members: 2, Processing: Duration(benchProcessing)}}, c.Bootstrap(), rec)
	if err != nil {
		b.Fatal(err)
	}
	bare, err := startBareShare(w.cfg, c.Bootstrap(), topic, "bench-bare", 2)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.Run(context.Background())
		done <- err
	}()
	time.Sleep(warmup)
	b.ResetTimer()
	w0, b0, t0 := rec.accepted.Load(), bare.accepted.Load(), time.Now()
	time.Sleep(measure)
	w1, b1, secs := rec.accepted.Load(), bare.accepted.Load(), time.Since(t0).Seconds()
	b.StopTimer()
	bare.stop()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	if err := file.Close(); err != nil {
		b.Fatal(err)
	}
	if err := bare.err(); err != nil {
		b.Fatal(err)
	}
	recorded, base := float64(w1-w0)/secs, float64(b1-b0)/secs
	b.Logf("workload accepted %d in the window (%d in all), bare consumer %d (%d in all), of %d records, over %.1fs",
		w1-w0, rec.accepted.Load(), b1-b0, bare.accepted.Load(), records, secs)
	if recorded == 0 || base == 0 {
		b.Fatalf("a group accepted nothing in the window (workload %.0f/s, bare %.0f/s)", recorded, base)
	}
	if max(w1, b1) >= int64(records) {
		b.Fatalf("a group accepted all %d records by the end of the window (workload %d, bare %d): its backlog ran out, "+
			"raise KCHAOS_BENCH_SHARE_RECORDS", records, w1, b1)
	}
	b.ReportMetric(recorded, "accepted/s")
	b.ReportMetric(base, "baseline-accepted/s")
	b.ReportMetric((base-recorded)/base*100, "overhead-%")
}

// fill produces n small records to topic, batched, acks all.
func fill(b *testing.B, bootstrap []string, topic string, n int) {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.DefaultProduceTopic(topic),
		kgo.ProducerLinger(5*time.Millisecond), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var (
		failed atomic.Int64
		first  atomic.Value
	)
	begin := time.Now()
	for i := range n {
		cl.Produce(ctx, &kgo.Record{Value: fmt.Appendf(nil, "fill-%07d", i)}, func(_ *kgo.Record, err error) {
			if err != nil && failed.Add(1) == 1 {
				first.Store(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if n := failed.Load(); n > 0 {
		b.Fatalf("fill: %d of the records failed (first: %v)", n, first.Load())
	}
	b.Logf("filled %s with %d records in %s", topic, n, time.Since(begin).Round(100*time.Millisecond))
}

// acceptCounter is the workload's recorder, counting the accepts Kafka
// confirmed (a share-ack's records with status accept and outcome ok).
type acceptCounter struct {
	Recorder
	accepted atomic.Int64
}

func (r *acceptCounter) Complete(p int, typ histories.Type, f string, v any, e string) (histories.Event, error) {
	if f == histories.FShareAck {
		if a, ok := v.(histories.ShareAckValue); ok {
			for _, x := range a.Acks {
				if x.Status == histories.AckAccept && x.Outcome == histories.ShareOutcomeOK {
					r.accepted.Add(1)
				}
			}
		}
	}
	return r.Recorder.Complete(p, typ, f, v, e)
}

// bareShare is share-group members on franz-go alone: no history.
type bareShare struct {
	accepted atomic.Int64
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	first    error
}

// benchProcessing is both groups' processing time per poll: a workload's
// zero means DefaultShareProcessing (20 ms), which would make the
// benchmark measure sleeps, so both sleep this instead.
const benchProcessing = time.Microsecond

func startBareShare(cfg Config, bootstrap []string, topic, group string, members int) (*bareShare, error) {
	if err := setEarliest(bootstrap, group); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &bareShare{cancel: cancel}
	for i := range members {
		var (
			mu      sync.Mutex
			results kgo.ShareAckResults
		)
		cl, err := kgo.NewClient(append(franzCommon(cfg, bootstrap, fmt.Sprintf("bench-bare-%d", i)),
			kgo.ShareGroup(group), kgo.ConsumeTopics(topic), kgo.MaxConcurrentFetches(0),
			kgo.ShareMaxRecords(int32(DefaultShareMaxRecords)), kgo.FetchMaxWait(sharePollWait),
			kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
				mu.Lock()
				results = append(results, rs...)
				mu.Unlock()
			}))...)
		if err != nil {
			cancel()
			return nil, err
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer cl.Close()
			for ctx.Err() == nil {
				pctx, pcancel := context.WithTimeout(ctx, sharePollWait)
				fs := cl.PollRecords(pctx, DefaultShareMaxRecords)
				pcancel()
				perPart := map[int32]int64{}
				fs.EachRecord(func(r *kgo.Record) {
					r.Ack(kgo.AckAccept)
					perPart[r.Partition]++
				})
				if len(perPart) == 0 {
					continue
				}
				sleepCtx(ctx, benchProcessing)
				mu.Lock()
				results = nil
				mu.Unlock()
				if err := cl.FlushAcks(ctx); err != nil {
					if ctx.Err() == nil {
						s.fail(err)
					}
					continue
				}
				mu.Lock()
				bad := map[int32]bool{}
				for _, r := range results {
					if r.Topic == topic && r.Err != nil {
						bad[r.Partition] = true
					}
				}
				mu.Unlock()
				for p, n := range perPart {
					if !bad[p] {
						s.accepted.Add(n)
					}
				}
			}
		}()
	}
	return s, nil
}

func (s *bareShare) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		s.first = err
	}
}

func (s *bareShare) stop() { s.cancel(); s.wg.Wait() }

func (s *bareShare) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// setEarliest sets the bare group's share.auto.offset.reset to earliest,
// as the workload does for its own (setupShares), so both start at the
// backlog's first record.
func setEarliest(bootstrap []string, group string) error {
	w := &Workload{cfg: Config{Driver: DriverFranz, RequestTimeout: Duration(5 * time.Second),
		Shares: ShareConfig{Group: group}}, bootstrap: bootstrap}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return w.setupShares(ctx)
}
