//go:build integration

package docker_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/internal/testenv"
)

// BenchmarkClusterReady measures a cluster start (1 controller + 3 brokers)
// to ready: every broker registered and unfenced. It reports
// ready-seconds per start and excludes teardown. KCHAOS_IMAGE names
// another image to compare (for example one built without the
// class-data-sharing archive).
func BenchmarkClusterReady(b *testing.B) {
	testenv.Docker(b)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		begin := time.Now()
		c, err := docker.Start(ctx, cluster.Config{KafkaVersion: testenv.KafkaVersion(),
			Image: os.Getenv("KCHAOS_IMAGE"), Racks: cluster.Racks{"a": {0, 1}, "b": {2}}})
		took := time.Since(begin)
		if err != nil {
			cancel()
			b.Fatal(err)
		}
		total += took
		b.StopTimer()
		_ = c.Teardown(ctx)
		cancel()
		b.StartTimer()
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "ready-s/start")
}
