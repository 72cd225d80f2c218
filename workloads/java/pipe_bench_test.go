//go:build unix

package java

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/internal/cputime"
	"github.com/kchaos/kchaos/internal/testenv"
	"github.com/kchaos/kchaos/workloads"
)

// BenchmarkJavaPipe measures the java driver's line protocol alone, with
// no Kafka: round trips through the real JVM (proc.go to
// KchaosClient.java and back) of a request shaped like a send but
// answered at once by the JVM's reader thread (a close of a handle that
// does not exist). It tells how many sends a second the pipe itself could
// carry, and at what latency, beside BenchmarkProduce's acked/s: if the
// pipe's ceiling is far above the Java client's acked rate, the pipe is
// not what holds the client back.
//
// Concurrency is the number of goroutines with one request each in
// flight: 4 is s1's shape (4 producer processes, one send each), 256 the
// benchmark's pipelined one (4 clients x 64 slots). Metrics: round-trips/s,
// µs/round-trip (the latency each goroutine sees), and the CPU of this
// process and the JVM per round trip. It needs java and the driver built
// for the version (KCHAOS_KAFKA_VERSION or kchaos's default; built from
// the local Maven repository if need be, else skipped).
// clientCPU is the CPU this process and its JVMs have used.
func clientCPU() time.Duration { return cputime.Self() + javaDriver{}.JVMCPU() }

func BenchmarkJavaPipe(b *testing.B) {
	for _, conc := range []int{1, 4, 256} {
		b.Run(fmt.Sprintf("concurrency-%d", conc), func(b *testing.B) { benchJavaPipe(b, conc) })
	}
}

func benchJavaPipe(b *testing.B, conc int) {
	j := pipeJVM(b)
	// Warm the JVM's JIT (and Go's) on the same path before timing.
	if err := pipeRoundTrips(j, conc, 20000); err != nil {
		b.Fatal(err)
	}
	c0, t0 := clientCPU(), time.Now()
	b.ResetTimer()
	err := pipeRoundTrips(j, conc, b.N)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	secs, cpu := time.Since(t0).Seconds(), (clientCPU() - c0).Seconds()
	b.ReportMetric(float64(b.N)/secs, "round-trips/s")
	b.ReportMetric(secs/float64(b.N)*float64(conc)*1e6, "µs/round-trip")
	b.ReportMetric(cpu/float64(b.N)*1e6, "cpu-µs/round-trip")
}

// pipeJVM is a JVM of the driver for the default Kafka version, released
// when b ends.
func pipeJVM(b *testing.B) *jvm {
	b.Helper()
	if _, err := javaTool("java"); err != nil {
		b.Skip(err)
	}
	v := testenv.KafkaVersion()
	if v == "" {
		v = cluster.DefaultKafkaVersion
	}
	v, err := javaClientVersion(workloads.Config{ClusterVersion: v})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := javaBuild(ctx, v); err != nil {
		b.Skipf("java driver %s not built: %v", v, err)
	}
	j, err := acquireJVM(ctx, v, []string{"pipe-bench.invalid:9092"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { releaseJVM(j) })
	return j
}

// pipeRoundTrips makes n round trips from conc goroutines, each with one
// request in flight.
func pipeRoundTrips(j *jvm, conc, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	for g := 0; g < conc; g++ {
		k := n / conc
		if g < n%conc {
			k++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < k; i++ {
				f := map[string]any{"handle": -1, "topic": "bench-java-120000.000", "partition": g % 3,
					"value": fmt.Sprintf("p%d-%06d", g, i)} // a send's value, as the producers name it
				if _, err := j.call(ctx, "close", f); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
