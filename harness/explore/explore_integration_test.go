//go:build integration

package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/testenv"
)

// These run many real clusters (minutes each), so they sit behind
// KCHAOS_ALL_SCENARIOS as well as the integration tag: make test does not
// run them. Run one with
//
//	KCHAOS_ALL_SCENARIOS=1 flock /tmp/kchaos-cluster.lock go test -tags integration -count=1 -p 1 -timeout 60m -run TestExploreWeakConfig -v ./harness/explore

// exploreReal explores name with sets on real clusters.
func exploreReal(t *testing.T, name string, faults []string, runs int, sets ...string) (*Summary, string) {
	t.Helper()
	testenv.AllScenarios(t)
	testenv.Docker(t)
	if v := testenv.KafkaVersion(); v != "" {
		sets = append(sets, "cluster.kafka="+v)
	}
	s, err := scenario.Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Explorable(s, faults)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Minute)
	defer cancel()
	pipe := newPipeline(harness.Options{}, true)
	sum, dir, err := explore(ctx, Config{Scenario: e, Runs: runs, Seed: 5, Store: testenv.Store(t), ShrinkFor: 10 * time.Minute, Ahead: pipe.ahead, Close: pipe.Close,
		OnRun: func(p Progress) {
			t.Logf("run %d (seed %d): %s %v; %d findings, %.1f runs/hour", p.Last.Index, p.Last.Seed, p.Last.Verdict, p.Last.Classes, p.Findings, p.PerHour)
		},
		Log: func(l string) { t.Log("shrink:", l) }}, pipe.Run)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exploration folder %s", dir)
	return sum, dir
}

// TestExploreWeakConfigFindsAndShrinks (issue 24, must show): a
// deliberately weak config (RF 3, min.insync 1, acks all, unclean on:
// examples/weak-leader.yaml, the worked example of docs/explore.md)
// explored in staggered periods of a leader cut and a leader kill finds
// a loss, shrinks it to at most four fault steps reproducing at least 2
// of 3 times, and the repro, loaded as `kchaos run repro.yaml` loads it,
// shows lost-write again. The two faults are named rather than the
// default mix, which draws that pair seldom (docs/explore.md); power
// loss on every broker at once (lose-unflushed, count 3), tried first,
// lost nothing in its run on 2026-12-02.
func TestExploreWeakConfigFindsAndShrinks(t *testing.T) {
	// One run: each finding is shrunk with a 10-minute budget, and with
	// three runs (all findings on this config) the test ran past 45 min.
	sum, dir := exploreReal(t, filepath.Join("..", "..", "examples", "weak-leader.yaml"), nil, 1)
	if len(sum.Findings) == 0 {
		t.Fatalf("no finding in %d runs", len(sum.RunRecords))
	}
	f := sum.Findings[0]
	if f.Class != "lost-write" || f.Err != "" {
		t.Fatalf("finding %+v: want a lost-write shrunk without error", f)
	}
	k, n := rate(t, f.Rate)
	if f.ReproSteps > 4 || k < 2 || n != 3 {
		t.Errorf("repro of %d fault steps reproducing %s: want at most 4 and at least 2/3", f.ReproSteps, f.Rate)
	}
	repro, err := scenario.Load(filepath.Join(dir, f.Dir, "repro.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := harnessRunner(harness.Options{})(context.Background(), repro, testenv.Store(t))
	if err != nil {
		t.Fatal(err)
	}
	if !shows(out.Classes, "lost-write") {
		t.Errorf("kchaos run repro.yaml: classes %v, want lost-write (%s)", out.Classes, out.Dir)
	}
	for _, name := range []string{"original.yaml", "finding.md", "original-run/report.md"} {
		if _, err := os.Stat(filepath.Join(dir, f.Dir, name)); err != nil {
			t.Errorf("finding folder lacks %s", name)
		}
	}
}

// TestExploreRecommendedConfigNoFinding (issue 24, must show): the
// recommended config (RF 3, min.insync 2, unclean off, ELR on) under the
// default mix: no finding in its runs.
func TestExploreRecommendedConfigNoFinding(t *testing.T) {
	sum, _ := exploreReal(t, "s2", nil, 3, "topic.configs.min.insync.replicas=2",
		"topic.configs.unclean.leader.election.enable=false", "cluster.elr=on", "workload.duration=40s")
	for _, r := range sum.RunRecords {
		if r.Err != "" {
			t.Errorf("run %d (seed %d) failed: %s", r.Index, r.Seed, r.Err)
		}
	}
	if len(sum.Findings) > 0 {
		t.Errorf("findings with the recommended config: %+v", sum.Findings)
	}
}

func rate(t *testing.T, r string) (int, int) {
	// "k/n", maybe followed by the reruns that failed before their check.
	var k, n int
	if _, err := fmt.Sscanf(r, "%d/%d", &k, &n); err != nil {
		t.Fatalf("rate %q: %v", r, err)
	}
	return k, n
}
