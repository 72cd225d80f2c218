//go:build integration

package explore

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/testenv"
)

// BenchmarkExploreThroughput (issue 24, item 4) explores s2 (10 s
// workloads, one pause a period, no shrink) for three runs, serially
// (HarnessRunner: each cluster starts when the run before it is done),
// overlapped (Pipeline: each starts when the workload before it stops)
// and reused (Pipeline with reuse: runs 2 and 3 on run 1's cluster), and
// reports runs per hour and the idle time between one run's end of
// workload and the next's start of workload. Target: idle at most 5 s.
//
//	TESTCONTAINERS_RYUK_DISABLED=true flock /tmp/kchaos-cluster.lock go test -tags integration -run '^$' -bench ExploreThroughput -benchtime 1x ./harness/explore
//
// Add -v (and -bench ExploreThroughput/reused for one mode) for every
// phase change with its time.
func BenchmarkExploreThroughput(b *testing.B) {
	testenv.Docker(b)
	sets := []string{"workload.duration=10s"}
	if v := testenv.KafkaVersion(); v != "" {
		sets = append(sets, "cluster.kafka="+v)
	}
	s, err := scenario.Load("s2", sets)
	if err != nil {
		b.Fatal(err)
	}
	e, err := Explorable(s, []string{"pause"})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"serial", "overlapped", "reused"} {
		b.Run(mode, func(b *testing.B) {
			var perHour, idle float64
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
				cfg := Config{Scenario: e, Runs: 3, Seed: 11, Store: b.TempDir(), NoShrink: true}
				run := harnessRunner(harness.Options{})
				var p *pipeline
				if mode != "serial" {
					// With -v, each phase change with its time, to say where
					// the idle time goes (without -v a benchmark's log is cut
					// at 10 lines, and the per-run lines below must show).
					var opts harness.Options
					if testing.Verbose() {
						opts.Progress = progress.Func(func(ev progress.Event) {
							if ev.Stats == nil || ev.Done {
								b.Logf("%s %s %s done=%v %s", mode, time.Now().UTC().Format("15:04:05.000"), ev.Phase, ev.Done, ev.Text)
							}
						})
					}
					p = newPipeline(opts, mode == "reused")
					cfg.Ahead, cfg.Close, run = p.ahead, p.Close, p.Run
				}
				sum, _, err := explore(ctx, cfg, run)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range sum.RunRecords {
					if r.Err != "" {
						b.Fatalf("run %d: %s", r.Index, r.Err)
					}
					b.Logf("%s run %d: %.1f s, idle before it %.1f s, %s, reused from %q (refused: %q)", mode, r.Index, r.Seconds, r.IdleSeconds, r.Verdict, r.ReusedFrom, r.ReuseRefused)
				}
				if mode == "reused" && p.Reused != len(sum.RunRecords)-1 {
					b.Errorf("%d of %d runs reused a cluster, want all but the first", p.Reused, len(sum.RunRecords))
				}
				perHour += sum.RunsPerHour
				idle += sum.IdleSeconds
			}
			n := float64(b.N)
			b.ReportMetric(perHour/n, "runs/hour")
			b.ReportMetric(idle/n, "idle-s")
		})
	}
}
