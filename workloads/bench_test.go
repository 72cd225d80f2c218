//go:build integration

package workloads

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// BenchmarkProduce measures, per driver, acked sends per second with
// acks=all on the 3-broker cluster (topic RF 3, min.insync.replicas 2,
// three partitions led by three brokers) in pipelined mode, and what
// recording costs against the same client library producing without
// recording, in the same run.
//
// The machines are shared and their load drifts by a factor of several
// within a minute (and a fresh cluster's throughput climbs for tens of
// seconds while the brokers' JIT compiles), so separate runs with and
// without a history cannot be compared. Instead one workload runs
// continuously and a toggleRecorder switches, every half second, between
// writing the history to disk (histories.Create) and discarding it: each
// op goes wholly to the recorder that was on when it was invoked. Drift
// then falls on both modes alike. After a warm-up (KCHAOS_BENCH_WARMUP,
// default 20s) it measures for KCHAOS_BENCH_MEASURE (default 30s).
//
// Metrics: acked/s (recorded windows), baseline-acked/s (discarding
// windows), overhead-% = (baseline - recorded) / baseline * 100,
// overhead-ratio = baseline / recorded, and this process's CPU (the client
// side) per acked send in each mode. The timing loop ignores b.N: one
// iteration outlasts the default benchtime, so the benchmark runs once.
func BenchmarkProduce(b *testing.B) {
	for _, drv := range []string{DriverFranz, DriverKafkaGo} {
		b.Run(drv, func(b *testing.B) { benchProduce(b, drv) })
	}
}

// benchConfig is the pipelined workload the benchmark measures: 4 clients
// with 64 sends in flight each (KCHAOS_BENCH_INFLIGHT overrides the 64).
func benchConfig(drv, topic string, d time.Duration) Config {
	inflight := 64
	if n, err := strconv.Atoi(os.Getenv("KCHAOS_BENCH_INFLIGHT")); err == nil && n > 0 {
		inflight = n
	}
	return Config{Driver: drv, Topic: topic, Partitions: 3, Producers: 4, MaxInFlight: inflight,
		Acks: AcksAll, RequestTimeout: Duration(5 * time.Second), Duration: Duration(d)}
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

func benchProduce(b *testing.B, drv string) {
	c, adm := sharedAdmin(b)
	topic := "bench-" + drv + "-" + time.Now().Format("150405.000")
	createTopic(b, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}})
	warmup := envDuration("KCHAOS_BENCH_WARMUP", 20*time.Second)
	measure := envDuration("KCHAOS_BENCH_MEASURE", 30*time.Second)

	file, err := histories.Create(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	tr := &toggleRecorder{file: file, route: map[int]int{}}
	w, err := New(benchConfig(drv, topic, warmup+measure+time.Second), c.Bootstrap(), tr)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan Stats, 1)
	go func() {
		st, err := w.Run(context.Background())
		if err != nil {
			b.Error(err)
		}
		done <- st
	}()
	time.Sleep(warmup)
	b.ResetTimer()
	var secs, cpu [2]float64
	var acked [2]int64
	const window = 500 * time.Millisecond
	for i := 0; time.Duration(i)*window < measure; i++ {
		mode := i % 2
		a0, c0, t0 := tr.acked[mode].Load(), cpuTime(), time.Now()
		tr.mode.Store(int32(mode))
		time.Sleep(window)
		acked[mode] += tr.acked[mode].Load() - a0
		cpu[mode] += (cpuTime() - c0).Seconds()
		secs[mode] += time.Since(t0).Seconds()
	}
	b.StopTimer()
	tr.mode.Store(discarding)
	st := <-done
	if err := file.Close(); err != nil {
		b.Fatal(err)
	}
	base, rec := float64(acked[discarding])/secs[discarding], float64(acked[recording])/secs[recording]
	b.Logf("%s: run %+v", drv, st)
	b.Logf("%s: recorded %d acked in %.1fs, baseline %d acked in %.1fs", drv,
		acked[recording], secs[recording], acked[discarding], secs[discarding])
	b.ReportMetric(rec, "acked/s")
	b.ReportMetric(base, "baseline-acked/s")
	b.ReportMetric((base-rec)/base*100, "overhead-%")
	b.ReportMetric(base/rec, "overhead-ratio")
	b.ReportMetric(cpu[recording]/float64(acked[recording])*1e6, "cpu-µs/acked")
	b.ReportMetric(cpu[discarding]/float64(acked[discarding])*1e6, "baseline-cpu-µs/acked")
}

// Modes of the toggleRecorder.
const (
	discarding = 0
	recording  = 1
)

// toggleRecorder sends each op to the history file or to nothing, by the
// mode at the op's invoke; its completion follows it there, so the file
// holds whole ops and stays a valid history. It counts ok sends completed
// in the mode they were invoked in.
type toggleRecorder struct {
	file  Recorder
	mode  atomic.Int32
	mu    sync.Mutex
	route map[int]int // process -> mode of its open op
	acked [2]atomic.Int64
}

func (r *toggleRecorder) NewProcess() int { return r.file.NewProcess() }

func (r *toggleRecorder) Invoke(p int, f string, v any) (histories.Event, error) {
	m := int(r.mode.Load())
	r.mu.Lock()
	r.route[p] = m
	r.mu.Unlock()
	if m == recording {
		return r.file.Invoke(p, f, v)
	}
	return histories.Event{}, nil
}

func (r *toggleRecorder) Complete(p int, typ histories.Type, f string, v any, e string) (histories.Event, error) {
	r.mu.Lock()
	m := r.route[p]
	r.mu.Unlock()
	if typ == histories.OK && int(r.mode.Load()) == m {
		r.acked[m].Add(1)
	}
	if m == recording {
		return r.file.Complete(p, typ, f, v, e)
	}
	return histories.Event{}, nil
}

func (r *toggleRecorder) Record(p int, typ histories.Type, f string, v any, e string) (histories.Event, error) {
	return r.file.Record(p, typ, f, v, e)
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
