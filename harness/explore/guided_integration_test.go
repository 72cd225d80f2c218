//go:build integration

package explore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestGuidedExploreUntargetedWeak (issue 40, item 3): on the untargeted
// weak config (examples/weak-leader.yaml without its targets: RF 3,
// min.insync.replicas 1, unclean election on, acks=all; leader-followers
// cuts, kills and pauses drawn, aimed by nothing) guided explore finds a
// loss within its run budget (6 runs, at most 14 minutes of cluster time;
// findings kept as found, unshrunk, each a realised repro of at most the
// faults its run's schedule chose: four when an episode was two strikes
// and the run held one, up to five since runs hold two episodes and a
// third strike). Run here on 2026-12-05 (Kafka 4.4.0, seed 11, 226 s):
// lost-write in runs 1, 3 and 5 of 6 (pause the followers then kill the
// leader; cut the leader then pause it), 24 distinct transitions. That
// run showed the realised schedule refusing the guided untils (fixed
// since: Realised skips them; the repro assertion below came after it).
// Behind KCHAOS_ALL_SCENARIOS like the other explorations:
//
//	KCHAOS_ALL_SCENARIOS=1 flock /tmp/kchaos-cluster.lock go test -tags integration -count=1 -p 1 -timeout 20m -run TestGuidedExploreUntargetedWeak -v ./harness/explore
func TestGuidedExploreUntargetedWeak(t *testing.T) {
	testenv.AllScenarios(t)
	testenv.Docker(t)
	var sets []string
	if v := testenv.KafkaVersion(); v != "" {
		sets = append(sets, "cluster.kafka="+v)
	}
	s, err := scenario.Load(filepath.Join("..", "..", "examples", "weak-leader.yaml"), sets)
	if err != nil {
		t.Fatal(err)
	}
	s.Nemesis.Random.Targets = nil
	e, err := Explorable(s, []string{"partition-leader-followers", "kill", "pause"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 14*time.Minute)
	defer cancel()
	pipe := newPipeline(harness.Options{}, true)
	sum, dir, err := explore(ctx, Config{Scenario: e, Runs: 6, Seed: 11, Store: testenv.Store(t), NoShrink: true,
		Strategy: StrategyGuided, Ahead: pipe.ahead, Close: pipe.Close,
		OnRun: func(p Progress) {
			t.Logf("run %d (seed %d): %s %v, %d new transitions, guided %s; %d findings, %.1f runs/hour", p.Last.Index, p.Last.Seed,
				p.Last.Verdict, p.Last.Classes, p.Last.NewTransitions, choicesText(p.Last.Guided), p.Findings, p.PerHour)
		}}, pipe.Run)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exploration folder %s: %d runs, %d distinct transitions", dir, len(sum.RunRecords), sum.Transitions)
	for _, r := range sum.RunRecords {
		if r.Err != "" || r.CoverageErr != "" {
			t.Errorf("run %d: error %q, coverage error %q", r.Index, r.Err, r.CoverageErr)
		}
	}
	chose := map[string]int{}
	for _, r := range sum.RunRecords {
		chose[r.Finding] = len(r.Guided)
	}
	lost := false
	for _, f := range sum.Findings {
		lost = lost || f.Class == "lost-write"
		// Its realised schedule (the guided untils turned into the time
		// they took) is a repro of the faults its run struck.
		if f.Err != "" || f.Steps == 0 || f.Steps > chose[f.ID] {
			t.Errorf("finding %s: %d fault steps, error %q: want a realised repro of 1-%d (the run's choices)", f.ID, f.Steps, f.Err, chose[f.ID])
		}
	}
	if !lost {
		t.Errorf("no lost-write in %d guided runs: %+v", len(sum.RunRecords), sum.Findings)
	}
}
