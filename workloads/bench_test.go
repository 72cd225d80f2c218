//go:build integration

package workloads

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
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
// overhead-ratio = baseline / recorded, the client side's CPU per acked
// send in each mode (this process's, plus the JVM's for driver java:
// clientCPU), and µs/ack, the mean time from a send's invoke to its ok
// (with every slot busy, acked/s is about slots / µs/ack: Little's law
// tells a client slow per send from one that keeps fewer sends going).
// The warm-up's acked/s is logged every 5 s, which shows a fresh client's
// (a cold JVM's) ramp. The timing loop ignores b.N: one iteration
// outlasts the default benchtime, so the benchmark runs once.
//
// Every driver kchaos has runs, the java driver with the kafka-clients of
// the cluster's own release (as the harness passes it), built before the
// warm-up; its JVM starts with the run, as in a scenario, so the warm-up's
// ramp shows its JIT compiling. A JVM lingers after its run (javaLinger):
// with -count 2 the second java run reuses the first's JVM, warm.
//
// KCHAOS_BENCH_PARTITIONS (default 3) and KCHAOS_BENCH_REPLICAS (3, or 1:
// min.insync.replicas 1) shape the topic. With KCHAOS_BENCH_INFLIGHT=1,
// one partition and one replica it is s1's shape while broker 0 leads
// alone (4 processes, one send each, answered by one broker without
// replication), where a client's own latency per send shows most.
func BenchmarkProduce(b *testing.B) {
	for _, drv := range []string{DriverFranz, DriverKafkaGo, DriverJava} {
		b.Run(drv, func(b *testing.B) { benchProduce(b, drv) })
	}
}

// benchConfig is the pipelined workload the benchmark measures: 4 clients
// with 64 sends in flight each (KCHAOS_BENCH_INFLIGHT overrides the 64).
func benchConfig(drv, topic string, d time.Duration) Config {
	return Config{Driver: drv, Topic: topic, Partitions: 3, Producers: 4, MaxInFlight: envInt("KCHAOS_BENCH_INFLIGHT", 64),
		Acks: AcksAll, RequestTimeout: Duration(5 * time.Second), Duration: Duration(d)}
}

// benchTopic creates the topic: KCHAOS_BENCH_PARTITIONS partitions
// (default 3) of KCHAOS_BENCH_REPLICAS replicas (default 3; 1 or 2 too),
// leaders spread over the brokers, min.insync.replicas 2 (1 with one
// replica). It returns the number of partitions.
func benchTopic(b *testing.B, adm *admin.Client, topic string) int {
	parts, repl := envInt("KCHAOS_BENCH_PARTITIONS", 3), min(envInt("KCHAOS_BENCH_REPLICAS", 3), 3)
	assign := make([][]int32, parts)
	for p := range assign {
		for r := 0; r < repl; r++ {
			assign[p] = append(assign[p], int32((p+r)%3))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := adm.CreateTopic(ctx, admin.TopicSpec{Name: topic, Assignment: assign,
		Configs: map[string]string{"min.insync.replicas": strconv.Itoa(min(repl, 2))}}); err != nil {
		b.Fatalf("create topic %s: %v", topic, err)
	}
	return parts
}

// envInt is the positive integer in the environment variable name, else def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
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
	parts := benchTopic(b, adm, topic)
	warmup := envDuration("KCHAOS_BENCH_WARMUP", 20*time.Second)
	measure := envDuration("KCHAOS_BENCH_MEASURE", 30*time.Second)

	file, err := histories.Create(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	tr := &toggleRecorder{file: file, route: map[int]route{}}
	cfg := benchConfig(drv, topic, warmup+measure+time.Second)
	cfg.Partitions = parts
	if drv == DriverJava {
		cfg.ClusterVersion = c.Config().KafkaVersion // as the harness passes it
		jd, ok := DriverFor(DriverJava)
		if !ok {
			b.Fatal("driver java is not linked (drivers_test.go)")
		}
		if fe := jd.Refuse(cfg); len(fe) > 0 {
			b.Skipf("driver java: %v", fe) // no JDK (or no Maven for a first build) here
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		prepareDriver(ctx, b, cfg) // a first build resolves jars: not in the warm-up
		cancel()
	}
	w, err := New(cfg, c.Bootstrap(), tr)
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
	logRamp(b, drv, tr, warmup)
	b.ResetTimer()
	var secs, cpu [2]float64
	var acked, lat [2]int64
	const window = 500 * time.Millisecond
	for i := 0; time.Duration(i)*window < measure; i++ {
		mode := i % 2
		a0, l0, c0, t0 := tr.acked[mode].Load(), tr.latency[mode].Load(), clientCPU(drv), time.Now()
		tr.mode.Store(int32(mode))
		time.Sleep(window)
		acked[mode] += tr.acked[mode].Load() - a0
		lat[mode] += tr.latency[mode].Load() - l0
		cpu[mode] += (clientCPU(drv) - c0).Seconds()
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
	b.ReportMetric(float64(lat[recording])/float64(acked[recording])/1e3, "µs/ack")
}

// logRamp waits out the warm-up, logging the acked/s of each 5 s of it.
func logRamp(b *testing.B, drv string, tr *toggleRecorder, warmup time.Duration) {
	const step = 5 * time.Second
	for at := time.Duration(0); at < warmup; at += step {
		d := min(step, warmup-at)
		a0 := tr.acked[discarding].Load()
		time.Sleep(d)
		b.Logf("%s: warm-up %2.0fs-%2.0fs: %.0f acked/s", drv, at.Seconds(), (at + d).Seconds(),
			float64(tr.acked[discarding].Load()-a0)/d.Seconds())
	}
}

// Modes of the toggleRecorder.
const (
	discarding = 0
	recording  = 1
)

// toggleRecorder sends each op to the history file or to nothing, by the
// mode at the op's invoke; its completion follows it there, so the file
// holds whole ops and stays a valid history. It counts ok sends completed
// in the mode they were invoked in, and sums their invoke-to-ok times.
type toggleRecorder struct {
	file    Recorder
	mode    atomic.Int32
	mu      sync.Mutex
	route   map[int]route // process -> its open op
	acked   [2]atomic.Int64
	latency [2]atomic.Int64 // ns
}

// route is a process's open op: the mode at its invoke, and when.
type route struct {
	mode    int
	invoked time.Time
}

func (r *toggleRecorder) NewProcess() int { return r.file.NewProcess() }

func (r *toggleRecorder) Elapsed() time.Duration { return r.file.Elapsed() }

func (r *toggleRecorder) Invoke(p int, f string, v any) (histories.Event, error) {
	m := int(r.mode.Load())
	r.mu.Lock()
	r.route[p] = route{m, time.Now()}
	r.mu.Unlock()
	if m == recording {
		return r.file.Invoke(p, f, v)
	}
	return histories.Event{}, nil
}

func (r *toggleRecorder) Complete(p int, typ histories.Type, f string, v any, e string) (histories.Event, error) {
	r.mu.Lock()
	rt := r.route[p]
	r.mu.Unlock()
	m := rt.mode
	if typ == histories.OK && int(r.mode.Load()) == m {
		r.acked[m].Add(1)
		r.latency[m].Add(int64(time.Since(rt.invoked)))
	}
	if m == recording {
		return r.file.Complete(p, typ, f, v, e)
	}
	return histories.Event{}, nil
}

func (r *toggleRecorder) Record(p int, typ histories.Type, f string, v any, e string) (histories.Event, error) {
	return r.file.Record(p, typ, f, v, e)
}
