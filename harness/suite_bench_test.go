//go:build integration

package harness

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// BenchmarkSuiteCell runs one suite cell (s1 on the default or
// KCHAOS_KAFKA_VERSION release) and reports its wall time, the part its
// history spans (the story: workload, faults, final read) and the rest,
// kchaos's overhead per cell (cluster start, check, report, teardown).
// Target: overhead at most 20 s.
//
// BenchmarkSuiteCell/reused runs s1 twice with --reuse-clusters (issue 40,
// item 5) and reports the second cell's overhead, on the cluster the
// first left: target 3 s.
func BenchmarkSuiteCell(b *testing.B) {
	b.Run("fresh", func(b *testing.B) { benchSuiteCell(b, false) })
	b.Run("reused", func(b *testing.B) { benchSuiteCell(b, true) })
}

func benchSuiteCell(b *testing.B, reuse bool) {
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
		runs := 1
		if reuse {
			runs = 2
		}
		plan, err := SuitePlan(s, SuiteOptions{Kafka: kafka, Only: []string{"s1"}, Runs: runs, ReuseClusters: reuse})
		if err != nil {
			b.Fatal(err)
		}
		res, err := RunBatch(ctx, plan, BatchOptions{Options: Options{Store: b.TempDir(), NoScreenshot: true}})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range res.Rows {
			if c.Status != "match" {
				b.Fatalf("cell %s: %s %s", c.ID, c.Status, c.Reason)
			}
		}
		c := res.Rows[len(res.Rows)-1] // reused: the second, on the first's cluster
		if reuse && !reusedCell(c.RunDir) {
			b.Fatalf("cell %s did not run on the cluster the cell before it left (run.json)", c.ID)
		}
		cell += c.Seconds
		story += c.StorySeconds
	}
	n := float64(b.N)
	b.ReportMetric(cell/n, "cell-s")
	b.ReportMetric(story/n, "story-s")
	b.ReportMetric((cell-story)/n, "overhead-s")
}

// reusedCell reads a run folder's run.json: whether the run was on a
// cluster an earlier run left.
func reusedCell(dir string) bool {
	info, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile))
	return err == nil && info.Cluster != nil && info.Cluster.ReusedFrom != ""
}
