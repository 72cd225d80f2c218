package workloads

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// BenchmarkProduce measures, per driver, acked sends per second with
// acks=all on the 3-broker cluster (topic RF 3, min.insync.replicas 2,
// three partitions led by three brokers) in pipelined mode, and the cost
// of recording: the same workload, same client library and settings, run
// alternately with a history written to disk (histories.Create) and with
// Discard, in phases ordered A B B A A B so that drift in the machine's
// load falls on both alike.
//
// Metrics: acked/s (recorded), baseline-acked/s (not recorded),
// overhead-% = (baseline - recorded) / baseline * 100, and overhead-ratio
// = baseline / recorded. The timing loop ignores b.N: each phase runs for
// KCHAOS_BENCH_PHASE (default 5s), which makes one iteration longer than
// the default benchtime, so the benchmark runs once.
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
	run := func(recorded bool, i int) (acked int64, rate float64) {
		var rec Recorder = &Discard{}
		var hist *histories.Recorder
		if recorded {
			hist, err = histories.Create(filepath.Join(dir, "history-"+string(rune('a'+i))+".jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			rec = hist
		}
		w, err := New(benchConfig(drv, topic, phase), c.Bootstrap(), rec)
		if err != nil {
			b.Fatal(err)
		}
		st, err := w.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if hist != nil {
			if err := hist.Close(); err != nil {
				b.Fatal(err)
			}
		}
		if st.Failed+st.Indeterminate > 0 {
			b.Logf("phase %d: %d failed, %d indeterminate: %v", i, st.Failed, st.Indeterminate, st.Errors)
		}
		return st.Acked, float64(st.Acked) / st.Elapsed.Seconds()
	}
	run(false, 0) // warm-up: JIT in the brokers, connections, page cache
	b.ResetTimer()
	order := []bool{false, true, true, false, false, true}
	var recAcked, baseAcked int64
	var recRate, baseRate float64
	for i, recorded := range order {
		acked, rate := run(recorded, i+1)
		b.Logf("phase %d recorded=%v: %d acked, %.0f acked/s", i+1, recorded, acked, rate)
		if recorded {
			recAcked += acked
			recRate += rate / 3
		} else {
			baseAcked += acked
			baseRate += rate / 3
		}
	}
	b.StopTimer()
	b.ReportMetric(recRate, "acked/s")
	b.ReportMetric(baseRate, "baseline-acked/s")
	b.ReportMetric((baseRate-recRate)/baseRate*100, "overhead-%")
	b.ReportMetric(baseRate/recRate, "overhead-ratio")
	b.Logf("%s: recorded %d acked (%.0f/s), baseline %d acked (%.0f/s)", drv, recAcked, recRate, baseAcked, baseRate)
}
