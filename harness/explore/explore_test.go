package explore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
)

// simRunner stands in for harness.Run: an explored (random) run is a
// finding when its seed is even, and then its history is real-s2's (a
// partition, a kill of node 0, unclean switched on: lost writes); a
// scripted candidate shows lost-write when it keeps the partition and the
// kill of node 0 (the config change is not needed here). Every run gets a
// folder of its own under store, as harness.Run's.
type simRunner struct {
	t    *testing.T
	runs int
}

func (r *simRunner) run(_ context.Context, s *scenario.Scenario, store string) (judged, error) {
	r.runs++
	if err := os.MkdirAll(store, 0o755); err != nil {
		return judged{}, err
	}
	dir, err := os.MkdirTemp(store, s.Name+"-")
	if err != nil {
		return judged{}, err
	}
	out := judged{Dir: dir, Verdict: checker.Valid}
	var lost bool
	if s.Nemesis.Random != nil {
		lost = s.Seed%2 == 0
		if lost {
			b, err := os.ReadFile(filepath.Join("..", "..", "histories", "testdata", "real-s2", "history.jsonl"))
			if err != nil {
				return out, err
			}
			if err := os.WriteFile(filepath.Join(dir, checker.HistoryFile), b, 0o644); err != nil {
				return out, err
			}
		}
	} else {
		faults := faultsOf(s)
		i := slices.Index(faults, "partition")
		j := slices.IndexFunc(s.Nemesis.Steps, func(st nemesis.Step) bool {
			return st.Fault == "kill" && st.Target != nil && slices.Equal(st.Target.Nodes, []int32{0})
		})
		lost = i >= 0 && j >= 0
	}
	if lost {
		out.Verdict, out.Classes, out.Reasons = checker.Invalid, []string{"lost-write", "offset-reuse"}, []string{"2 acked records lost"}
	}
	return out, nil
}

func TestExploreKeepsFindingsAndShrinks(t *testing.T) {
	e := explorable(t, "s2")
	store := t.TempDir()
	r := &simRunner{t: t}
	var progress []Progress
	sum, dir, err := explore(context.Background(), Config{Scenario: e, Runs: 6, Seed: 7, Store: store,
		OnRun: func(p Progress) { progress = append(progress, p) }}, r.run)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.RunRecords) != 6 || len(progress) != 6 || progress[5].Done != 6 {
		t.Fatalf("%d runs recorded, %d progress reports", len(sum.RunRecords), len(progress))
	}
	even := 0
	for i, rec := range sum.RunRecords {
		if rec.Index != i || rec.Seed != runSeed(7, i) {
			t.Errorf("run %d: index %d seed %d, want seed %d", i, rec.Index, rec.Seed, runSeed(7, i))
		}
		if rec.Seed%2 == 0 {
			even++
			if rec.Finding == "" || rec.Verdict != "invalid" {
				t.Errorf("run %d (even seed): no finding", i)
			}
		} else if rec.Finding != "" {
			t.Errorf("run %d (odd seed): finding %s", i, rec.Finding)
		}
	}
	if even == 0 || len(sum.Findings) != even {
		t.Fatalf("%d findings for %d even seeds (test needs at least one)", len(sum.Findings), even)
	}
	f := sum.Findings[0]
	fdir := filepath.Join(dir, f.Dir)
	for _, name := range []string{"original-run/history.jsonl", "original.yaml", "repro.yaml", "finding.md", "finding.json", "repro-run"} {
		if _, err := os.Stat(filepath.Join(fdir, name)); err != nil {
			t.Errorf("finding %s lacks %s: %v", f.ID, name, err)
		}
	}
	if f.Steps != 3 || f.ReproSteps != 2 || f.Rate != "3/3" || f.Class != "lost-write" || !strings.HasSuffix(f.ID, "-lost-write") {
		t.Errorf("finding %+v: want 3 fault steps shrunk to 2, 3/3, lost-write", f)
	}
	repro, err := scenario.Load(filepath.Join(fdir, "repro.yaml"), nil)
	if err != nil {
		t.Fatalf("repro.yaml does not load: %v", err)
	}
	if got := faultsOf(repro); !slices.Equal(got, []string{"partition", "kill"}) {
		t.Errorf("repro faults %v", got)
	}
	md, _ := os.ReadFile(filepath.Join(fdir, "finding.md"))
	for _, want := range []string{"lost-write", "Reproduced 3/3", "kill on node(s) [0]", "2 acked records lost"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("finding.md lacks %q:\n%s", want, md)
		}
	}
	for _, gone := range []string{"runs", "shrink"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s/ kept without --keep (%v)", gone, err)
		}
	}
	var back Summary
	b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err := json.Unmarshal(b, &back); err != nil || len(back.RunRecords) != 6 {
		t.Errorf("explore.json: %v, %d runs", err, len(back.RunRecords))
	}

	// --keep keeps every run folder; --shard 2/2 does the odd runs only.
	sum, dir, err = explore(context.Background(), Config{Scenario: e, Runs: 6, Seed: 7, Store: t.TempDir(), Keep: true,
		Shard: Shard{I: 2, N: 2}, NoShrink: true}, r.run)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, rec := range sum.RunRecords {
		idx = append(idx, rec.Index)
	}
	if !slices.Equal(idx, []int{1, 3, 5}) || sum.Shard != "2/2" {
		t.Errorf("shard 2/2 ran %v (%q)", idx, sum.Shard)
	}
	kept, _ := os.ReadDir(filepath.Join(dir, "runs"))
	if len(kept)+len(sum.Findings) != 3 {
		t.Errorf("--keep kept %d run folders and %d findings of 3 runs", len(kept), len(sum.Findings))
	}
}

// TestExploreForDuration: --for bounds the runs by the clock.
func TestExploreForDuration(t *testing.T) {
	e := explorable(t, "s2")
	now := time.Unix(0, 0)
	r := &simRunner{t: t}
	run := func(ctx context.Context, s *scenario.Scenario, store string) (judged, error) {
		now = now.Add(time.Minute)
		s.Seed |= 1 // no findings
		return r.run(ctx, s, store)
	}
	sum, _, err := explore(context.Background(), Config{Scenario: e, For: 10 * time.Minute, Store: t.TempDir(),
		Now: func() time.Time { return now }}, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.RunRecords) != 10 || sum.RunsPerHour != 60 {
		t.Errorf("%d runs, %.1f per hour; want 10 runs at 60 per hour", len(sum.RunRecords), sum.RunsPerHour)
	}
}

// TestExploreStopAfter: --stop-after N ends the exploration at its Nth
// finding (the runs after it are not made), says so in explore.md, and
// exits as a finding, not as a stop; with fewer findings than N its runs
// decide.
func TestExploreStopAfter(t *testing.T) {
	e := explorable(t, "s2")
	for _, tc := range []struct {
		stopAfter, runs, wantRuns, wantFindings int
		ended                                   bool
	}{
		{stopAfter: 1, runs: 8, wantFindings: 1, ended: true},
		{stopAfter: 2, runs: 8, wantFindings: 2, ended: true},
		{stopAfter: 0, runs: 4, wantRuns: 4},
		{stopAfter: 50, runs: 3, wantRuns: 3},
	} {
		r := &simRunner{t: t}
		sum, _, err := explore(context.Background(), Config{Scenario: e, Runs: tc.runs, Seed: 7, Store: t.TempDir(), NoShrink: true,
			StopAfter: tc.stopAfter}, r.run)
		if err != nil {
			t.Fatal(err)
		}
		last := sum.RunRecords[len(sum.RunRecords)-1]
		switch {
		case tc.ended && (len(sum.Findings) != tc.wantFindings || last.Finding == "" || len(sum.RunRecords) == tc.runs):
			t.Errorf("stop-after %d: %d runs, %d findings, last run's finding %q: want it to end at finding %d",
				tc.stopAfter, len(sum.RunRecords), len(sum.Findings), last.Finding, tc.wantFindings)
		case !tc.ended && len(sum.RunRecords) != tc.wantRuns:
			t.Errorf("stop-after %d: %d runs, want %d", tc.stopAfter, len(sum.RunRecords), tc.wantRuns)
		}
		md := sum.Markdown()
		if said := strings.Contains(md, "--stop-after"); said != tc.ended {
			t.Errorf("stop-after %d: explore.md says it ended there: %v, want %v", tc.stopAfter, said, tc.ended)
		}
		if tc.ended && sum.Exit() != 1 {
			t.Errorf("stop-after %d: exit %d, want 1 (a finding)", tc.stopAfter, sum.Exit())
		}
	}
}
