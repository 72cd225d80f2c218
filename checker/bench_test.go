package checker

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system time: on a shared machine it
// says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCheck1M checks a generated history of 1,000,000 client ops (8
// partitions, 16 processes) completely: reading the file, every direct
// check, the explanations, the stats and porcupine. It reports the seconds
// per check and the peak heap (sampled every 10 ms) besides ns/op.
func BenchmarkCheck1M(b *testing.B) {
	path := synth1M(b)
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	for range b.N {
		res, _, err := CheckPath(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Valid != Valid || res.Linearizable.Result != "ok" {
			b.Fatalf("generated history judged %v (linearizable %s): %v", res.Valid, res.Linearizable.Result, res.Reasons)
		}
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	close(stop)
	<-done
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/check")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/check")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

// synth1M writes the benchmarks' history of 1,000,000 client ops (8
// partitions, 16 processes, a few failed and unknown sends) to a
// temporary history file and returns its path.
func synth1M(b *testing.B) string {
	path := filepath.Join(b.TempDir(), HistoryFile)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	writeSynth(f, synthConfig{Ops: 1_000_000, Partitions: 8, Workers: 16, Seed: 1, InfoRate: 0.002, FailRate: 0.003})
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
