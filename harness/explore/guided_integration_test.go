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

// TestGuidedExploreUntargetedWeak (issue 40, item 3, must show): on the
// untargeted weak config (examples/weak-leader.yaml without its targets:
// RF 3, min.insync.replicas 1, unclean election on, acks=all;
// leader-followers cuts, kills and pauses drawn, aimed by nothing) guided
// explore finds a loss within its run budget (6 runs, ending at its first
// finding: --stop-after 1), shrinks it to a repro of at most four fault
// steps reproducing at least 2 of 3 times, and that repro, loaded as
// `kchaos run repro.yaml` loads it, shows lost-write again. Until
// 2026-12-06 a guided run held at most four fault steps, so the test kept
// findings unshrunk; since the guided strategy strikes a third fault and
// runs more episodes (five strikes a run, planned), the four steps are the
// shrink's to reach, as the issue asks. Run here on 2026-12-06, Kafka
// 4.4.0, seed 11, twice: with guided v2 (951 s: run 0 lost records,
// shrunk to pause brokers 1 and 2 then kill broker 0, at least 2 of 3,
// the repro losing records again) and with v3 and the struck untils (949
// s: run 0 lost records after five strikes, cut the leader from its
// followers, kill it, pause the followers, kill the replicas out of the
// ISR, pause the leader after the first pause healed; shrunk in 18 runs,
// 14 min, to two fault steps, the cut and the kill of broker 0,
// reproducing 3 of 3 on fresh clusters; the repro, run as kchaos run runs
// it, lost records again). Again on 2026-12-07 at stop 55's code (938 s):
// run 0 lost records (lost-write, offset-reuse) after five strikes (the
// cut of the leader, its kill, pause of the followers, kill of the
// replicas out of the ISR, pause of the leader), shrunk in 20 runs, 13.9
// min, to two fault steps reproducing 3 of 3. Again later that day, with
// the repro keeping the original's untils (741 s): run 0 lost records
// after the same five strikes, shrunk in 18 runs, 10.6 min, to two fault
// steps reproducing 3 of 3. Before (2026-12-05, seed 11, 226 s, unshrunk):
// lost-write in runs 1, 3 and 5 of 6. Behind KCHAOS_ALL_SCENARIOS like
// the other explorations:
//
//	KCHAOS_ALL_SCENARIOS=1 flock /tmp/kchaos-cluster.lock go test -tags integration -count=1 -p 1 -timeout 45m -run TestGuidedExploreUntargetedWeak -v ./harness/explore
func TestGuidedExploreUntargetedWeak(t *testing.T) { exploreUntargetedWeak(t, StrategyGuided) }

// TestLiveExploreUntargetedWeak is the same with --strategy live (each
// strike chosen in the state the observer shows): the loss found, shrunk
// to at most four fault steps from the schedule the chooser played, and
// reproduced by `kchaos run`.
//
//	KCHAOS_ALL_SCENARIOS=1 flock /tmp/kchaos-cluster.lock go test -tags integration -count=1 -p 1 -timeout 45m -run TestLiveExploreUntargetedWeak -v ./harness/explore
func TestLiveExploreUntargetedWeak(t *testing.T) { exploreUntargetedWeak(t, StrategyLive) }

func exploreUntargetedWeak(t *testing.T, strategy string) {
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
	ctx, cancel := context.WithTimeout(context.Background(), 35*time.Minute)
	defer cancel()
	pipe := newPipeline(harness.Options{}, true)
	sum, dir, err := explore(ctx, Config{Scenario: e, Runs: 6, Seed: 11, Store: testenv.Store(t), StopAfter: 1, ShrinkFor: 12 * time.Minute,
		Strategy: strategy, Ahead: pipe.ahead, Close: pipe.Close,
		OnRun: func(p Progress) {
			t.Logf("run %d (seed %d): %s %v, %d new transitions, %s %s; %d findings, %.1f runs/hour", p.Last.Index, p.Last.Seed,
				p.Last.Verdict, p.Last.Classes, p.Last.NewTransitions, strategy, choicesText(p.Last.Guided), p.Findings, p.PerHour)
		},
		Log: func(l string) { t.Log("shrink:", l) }}, pipe.Run)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exploration folder %s: %d runs, %d distinct transitions", dir, len(sum.RunRecords), sum.Transitions)
	for _, r := range sum.RunRecords {
		if r.Err != "" || r.CoverageErr != "" {
			t.Errorf("run %d: error %q, coverage error %q", r.Index, r.Err, r.CoverageErr)
		}
	}
	if len(sum.Findings) == 0 {
		t.Fatalf("no finding in %d %s runs", len(sum.RunRecords), strategy)
	}
	f := sum.Findings[0]
	if f.Class != "lost-write" || f.Err != "" {
		t.Fatalf("finding %+v: want a lost-write shrunk without error", f)
	}
	t.Logf("finding %s: %d fault steps as found, repro of %d reproducing %s in %d shrink runs (%.1f min)", f.ID, f.Steps, f.ReproSteps, f.Rate, f.ShrinkRuns, f.ShrinkMinutes)
	k, n := rate(t, f.Rate)
	if f.ReproSteps == 0 || f.ReproSteps > 4 || k < 2 || n != 3 {
		t.Errorf("finding %s: %d fault steps found, repro of %d reproducing %s: want 1-4 and at least 2/3", f.ID, f.Steps, f.ReproSteps, f.Rate)
	}
	repro, err := scenario.Load(filepath.Join(dir, f.Dir, "repro.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := harnessRunner(harness.Options{})(ctx, repro, testenv.Store(t))
	if err != nil {
		t.Fatal(err)
	}
	if !shows(out.Classes, "lost-write") {
		t.Errorf("kchaos run repro.yaml: classes %v, want lost-write (%s)", out.Classes, out.Dir)
	}
}
