package explore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
)

// TestExploreAnnouncesTheNextRun: before each run Explore tells Ahead
// which run follows it (the very scenario it then runs, so that a
// Pipeline's warm cluster is used), nil after the last run and at the
// end; a finding's shrink candidates are each announced with nil (the
// next run is of the same cluster, not known yet: keep the cluster,
// start nothing ahead) under the shrink's store, and its final reruns
// are not announced at all (a fresh cluster each, as `kchaos run` runs
// the repro); the idle time between one run's workload and the next's is
// measured, except across a shrink.
func TestExploreAnnouncesTheNextRun(t *testing.T) {
	e := explorable(t, "s2")
	for _, tc := range []struct {
		name     string
		runs     int
		shard    Shard
		findings bool // even seeds are findings (simRunner)
	}{
		{"whole", 4, Shard{}, false},
		{"shard 2/3", 8, Shard{I: 2, N: 3}, false},
		{"with findings", 6, Shard{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &simRunner{t: t}
			var announced *scenario.Scenario
			var ahead []*scenario.Scenario
			clock := time.Unix(0, 0)
			var ran, unannounced, candidates int
			shrinkAnnounced := false // a shrink's Ahead came since the last run
			run := func(ctx context.Context, s *scenario.Scenario, store string) (judged, error) {
				if !tc.findings {
					s.Seed |= 1
				}
				if s.Nemesis.Random != nil {
					ran++
					if ran > 1 && s != announced {
						t.Errorf("run %d was not the one announced", ran)
					}
					if shrinkAnnounced {
						t.Errorf("run %d: announced as a shrink's candidate", ran)
					}
					if len(ahead) > 0 {
						announced = ahead[len(ahead)-1]
					}
				} else if shrinkAnnounced {
					candidates++
				} else {
					unannounced++
				}
				shrinkAnnounced = false
				out, err := r.run(ctx, s, store)
				clock = clock.Add(2 * time.Second) // cluster start and topic
				out.WorkloadStarted = clock
				clock = clock.Add(20 * time.Second)
				out.WorkloadEnded = clock
				clock = clock.Add(3 * time.Second) // read, check, report, teardown
				return out, err
			}
			closed, closedAfter := 0, 0
			sum, _, err := explore(context.Background(), Config{Scenario: e, Runs: tc.runs, Seed: 7, Store: t.TempDir(), Shard: tc.shard,
				Now: func() time.Time { return clock }, Tries: 1,
				Ahead: func(next *scenario.Scenario, store string) {
					if strings.Contains(store, string(filepath.Separator)+"shrink"+string(filepath.Separator)) {
						if next != nil {
							t.Errorf("a shrink announced %v, want nil (the next candidate is not known)", next)
						}
						shrinkAnnounced = true
						return
					}
					ahead = append(ahead, next)
				},
				Close: func() { closed, closedAfter = closed+1, len(ahead) }}, run)
			if err != nil {
				t.Fatal(err)
			}
			// Close comes once, at the end: the Ahead(nil) before the last
			// run must leave that run's cluster alone.
			if closed != 1 || closedAfter != len(ahead) {
				t.Errorf("Close called %d times, after %d of %d announcements", closed, closedAfter, len(ahead))
			}
			n := len(sum.RunRecords)
			// One announcement per run, then the final nil of the defer.
			if len(ahead) != n+1 || ahead[n-1] != nil || ahead[n] != nil {
				t.Fatalf("%d runs, announcements %v", n, ahead)
			}
			for i := 0; i < n-1; i++ {
				if ahead[i] == nil || ahead[i].Seed != sum.RunRecords[i+1].Seed {
					t.Errorf("announcement %d: %v, want the seed of run %d (%d)", i, ahead[i], sum.RunRecords[i+1].Index, sum.RunRecords[i+1].Seed)
				}
			}
			// Tries 1: one final rerun per finding, unannounced; every
			// candidate announced.
			if unannounced != len(sum.Findings) || tc.findings != (candidates > 0) {
				t.Errorf("%d final reruns for %d findings, %d candidates announced (findings %v)", unannounced, len(sum.Findings), candidates, tc.findings)
			}
			for i, rec := range sum.RunRecords {
				after := i > 0 && sum.RunRecords[i-1].Finding == ""
				if want := 5.0; after && rec.IdleSeconds != want || !after && rec.IdleSeconds != 0 {
					t.Errorf("run %d: idle %.1f s (after a plain run: %v)", rec.Index, rec.IdleSeconds, after)
				}
			}
			if !tc.findings && sum.IdleSeconds != 5 {
				t.Errorf("mean idle %.1f s, want 5", sum.IdleSeconds)
			}
		})
	}
}
