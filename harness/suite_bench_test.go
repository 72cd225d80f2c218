//go:build integration

package harness

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/internal/testenv"
)

// BenchmarkSuiteCell runs one suite cell (s1 on the default or
// KCHAOS_KAFKA_VERSION release) and reports its wall time, the part its
// history spans (the story: workload, faults, final read) and the rest,
// kchaos's overhead per cell (cluster start, check, report, teardown).
// Target: overhead at most 20 s.
func BenchmarkSuiteCell(b *testing.B) {
	testenv.Docker(b)
	kafka := []string{"latest"}
	if v := testenv.KafkaVersion(); v != "" {
		kafka = []string{v}
	}
	s, err := LoadSuite("seeds")
	if err != nil {
		b.Fatal(err)
	}
	var cell, story float64
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		plan, err := SuitePlan(s, SuiteOptions{Kafka: kafka, Only: []string{"s1"}})
		if err != nil {
			b.Fatal(err)
		}
		res, err := RunBatch(ctx, plan, BatchOptions{Options: Options{Store: b.TempDir(), NoScreenshot: true}})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		c := res.Rows[0]
		if c.Status != "match" {
			b.Fatalf("cell %s: %s %s", c.ID, c.Status, c.Reason)
		}
		cell += c.Seconds
		story += c.StorySeconds
	}
	n := float64(b.N)
	b.ReportMetric(cell/n, "cell-s")
	b.ReportMetric(story/n, "story-s")
	b.ReportMetric((cell-story)/n, "overhead-s")
}
