package explore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
)

// TestExploreThroughTheEngine: an exploration run as a plan of the batch
// engine keeps its folder its own (explore.json, explore.md,
// coverage.json, findings/, and schedules/ when guided: no batch page
// beside them), and an interruption after a run ends it there, that run
// recorded and the summary saying so.
func TestExploreThroughTheEngine(t *testing.T) {
	e := explorable(t, "s2")
	for _, tc := range []struct {
		name      string
		strategy  string
		findings  bool
		interrupt int // cancel after this many runs (0: never)
		runs      int
		want      []string
	}{
		{"random", StrategyRandom, false, 0, 4, []string{"coverage.json", "explore.json", "explore.md"}},
		{"random with findings", StrategyRandom, true, 0, 4, []string{"coverage.json", "explore.json", "explore.md", "findings"}},
		{"guided", StrategyGuided, false, 0, 4, []string{"coverage.json", "explore.json", "explore.md", "schedules"}},
		{"interrupted after run 2", StrategyRandom, false, 2, 2, []string{"coverage.json", "explore.json", "explore.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &simRunner{t: t}
			run := func(ctx context.Context, s *scenario.Scenario, store string) (judged, error) {
				if !tc.findings {
					s.Seed |= 1
				}
				return r.run(ctx, s, store)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sum, dir, err := explore(ctx, Config{Scenario: e, Runs: 4, Seed: 7, Store: t.TempDir(), NoShrink: true, Strategy: tc.strategy,
				OnRun: func(p Progress) {
					if p.Done == tc.interrupt {
						cancel()
					}
				}}, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.RunRecords) != tc.runs || sum.Interrupted != (tc.interrupt > 0) || tc.findings != (len(sum.Findings) > 0) {
				t.Errorf("%d runs, interrupted %v, %d findings; want %d runs, interrupted %v, findings %v",
					len(sum.RunRecords), sum.Interrupted, len(sum.Findings), tc.runs, tc.interrupt > 0, tc.findings)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, en := range ents {
				names = append(names, en.Name())
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("the exploration's folder holds %v, want %v", names, tc.want)
			}
			var back Summary
			b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
			if err := json.Unmarshal(b, &back); err != nil || len(back.RunRecords) != tc.runs || back.Interrupted != sum.Interrupted {
				t.Errorf("explore.json: %v, %d runs, interrupted %v", err, len(back.RunRecords), back.Interrupted)
			}
		})
	}
}
