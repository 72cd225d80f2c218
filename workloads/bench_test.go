package workloads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// BenchmarkProduce measures, per driver, acked sends per second with
// acks=all on the 3-broker cluster (topic RF 3, min.insync.replicas 2,
// three partitions led by three brokers) in pipelined mode, and the cost
// of recording: the same workload, same client library and settings, run
// alternately with a history written to disk (histories.Create) and with
// Discard, in eight phases ordered A B B A B A A B, so that a drift in the
// machine's load (other work on the 2 cores, the brokers warming up) falls
// on both alike.
//
// Metrics: acked/s (recorded), baseline-acked/s (not recorded),
// overhead-% = (baseline - recorded) / baseline * 100, and overhead-ratio
// = baseline / recorded, from the phases' totals; and the client side's
// CPU per acked send (this process's user+system time), which is steadier
// than throughput on a shared machine and shows what recording costs:
// cpu-µs/acked minus baseline-cpu-µs/acked. The timing loop ignores b.N:
// each phase runs for KCHAOS_BENCH_PHASE (default 5s), after a warm-up of
// three phases, which makes one iteration longer than the default
// benchtime, so the benchmark runs once.
func BenchmarkProduce(b *testing.B) {
	for _, drv := range []string{DriverFranz, DriverKafkaGo} {
		b.Run(drv, func(b *testing.B) { benchProduce(b, drv) })
	}
}

// benchConfig is the pipelined workload the benchmark measures.
func benchConfig(drv, topic string, phase time.Duration) Config {
	return Config{Driver: drv, Topic: topic, Partitions: 3, Producers: 4, MaxInFlight: 64,
		Acks: AcksAll, RequestTimeout: Duration(5 * time.Second), Duration: Duration(phase)}
}

func benchProduce(b *testing.B, drv string) {
	c := sharedCluster(b)
	adm, err := c.Admin()
	if err != nil {
		b.Fatal(err)
	}
	defer adm.Close()
	topic := "bench-" + drv + "-" + time.Now().Format("150405.000")
	createTopic(b, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}})
	phase := 5 * time.Second
	if s := os.Getenv("KCHAOS_BENCH_PHASE"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			phase = d
		}
	}
	dir := b.TempDir()
	type result struct {
		acked   int64
		secs    float64
		cpuSecs float64 // this process's CPU time: the client side's cost
	}
	run := func(recorded bool, name string, d time.Duration) result {
		var rec Recorder = &Discard{}
		var hist *histories.Recorder
		if recorded {
			hist, err = histories.Create(filepath.Join(dir, name+".jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			rec = hist
		}
		w, err := New(benchConfig(drv, topic, d), c.Bootstrap(), rec)
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := cpuTime()
		st, err := w.Run(context.Background())
		cpu := cpuTime() - cpu0
		if err != nil {
			b.Fatal(err)
		}
		if hist != nil {
			if err := hist.Close(); err != nil {
				b.Fatal(err)
			}
		}
		if st.Failed+st.Indeterminate > 0 {
			b.Logf("%s: %d failed, %d indeterminate: %v", name, st.Failed, st.Indeterminate, st.Errors)
		}
		return result{acked: st.Acked, secs: st.Elapsed.Seconds(), cpuSecs: cpu.Seconds()}
	}
	// Warm-up: the brokers' JIT and page cache, connections. Throughput
	// climbs for the first ten-odd seconds on a fresh cluster.
	run(false, "warmup", 3*phase)
	b.ResetTimer()
	order := []bool{false, true, true, false, true, false, false, true} // ABBA BAAB
	var sum [2]result
	for i, recorded := range order {
		r := run(recorded, fmt.Sprintf("phase%d", i+1), phase)
		b.Logf("phase %d recorded=%v: %d acked, %.0f acked/s, %.1f µs CPU per acked send",
			i+1, recorded, r.acked, float64(r.acked)/r.secs, r.cpuSecs/float64(r.acked)*1e6)
		k := 0
		if recorded {
			k = 1
		}
		sum[k].acked += r.acked
		sum[k].secs += r.secs
		sum[k].cpuSecs += r.cpuSecs
	}
	b.StopTimer()
	base, rec := float64(sum[0].acked)/sum[0].secs, float64(sum[1].acked)/sum[1].secs
	baseCPU, recCPU := sum[0].cpuSecs/float64(sum[0].acked)*1e6, sum[1].cpuSecs/float64(sum[1].acked)*1e6
	b.ReportMetric(rec, "acked/s")
	b.ReportMetric(base, "baseline-acked/s")
	b.ReportMetric((base-rec)/base*100, "overhead-%")
	b.ReportMetric(base/rec, "overhead-ratio")
	b.ReportMetric(recCPU, "cpu-µs/acked")
	b.ReportMetric(baseCPU, "baseline-cpu-µs/acked")
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
