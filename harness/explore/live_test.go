package explore

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// liveRig is a live chooser on the untargeted weak config (partition 0 of
// orders on brokers 0-2, led by 0) with a recorder whose observer samples
// the test writes, and a clock the test moves.
type liveRig struct {
	t      *testing.T
	played []nemesis.Step // as a runner plays what the chooser returns
	ch     *liveChooser
	env    *nemesis.Env
	rec    *histories.Recorder
	now    time.Time
}

func newLiveRig(t *testing.T, seed int64, history []*states.Coverage) *liveRig {
	t.Helper()
	r := &liveRig{t: t, now: time.Unix(1000, 0)}
	ch, err := newLiveChooser(untargetedWeak(t), seed, history, func() time.Time { return r.now })
	if err != nil {
		t.Fatal(err)
	}
	env, _, _ := nemesistest.NewEnv()
	r.rec = histories.NewRecorder(&bytes.Buffer{})
	t.Cleanup(func() { _ = r.rec.Close() })
	// The run's topic, as a reused cluster names it: the chooser must
	// follow it, not the scenario's.
	env.Recorder, env.Topic = r.rec, "orders-reuse1"
	r.ch, r.env = ch, env
	return r
}

// sample records an observer sample of partition 0.
func (r *liveRig) sample(leader, epoch int32, isr ...int32) {
	r.t.Helper()
	if _, err := r.rec.Record(histories.ObserverProcess, histories.Info, histories.FObserve,
		histories.ObserveValue{Topic: r.env.Topic, Partition: 0, Leader: leader, LeaderEpoch: epoch, ISR: isr}, ""); err != nil {
		r.t.Fatal(err)
	}
}

// liveText is steps in words, faults and heals included.
func liveText(steps []nemesis.Step) string {
	var out []string
	for _, s := range steps {
		switch {
		case s.Fault != "":
			role := ""
			if s.Target != nil {
				role = s.Target.Role
			}
			out = append(out, s.Fault+"@"+role)
		case s.Heal != "":
			out = append(out, "heal "+s.Heal)
		default:
			out = append(out, stepsText([]nemesis.Step{s}))
		}
	}
	return strings.Join(out, "; ")
}

// next asks the chooser as the runner does, telling it what was played.
func (r *liveRig) next() []nemesis.Step {
	st := r.ch.Next(context.Background(), r.env, slices.Clone(r.played))
	r.played = append(r.played, st...)
	return st
}

// TestLiveChooser: the chooser waits for the workload, then for a
// sample; strikes in the state the sample shows (the sequence-loss prior
// first: isolate the leader, then, once the ISR shrank to it, take it),
// each strike followed by its settle; with two strikes holding it heals;
// past the duration it ends, what holds left to the final heal; what it
// returned is a
// scripted scenario that validates, naming the states it struck in.
func TestLiveChooser(t *testing.T) {
	r := newLiveRig(t, 1, nil)
	if st := r.next(); len(st) != 1 || st[0].Wait <= 0 {
		t.Fatalf("first: %+v, want the workload's margin", st)
	}
	if st := r.next(); len(st) != 1 || st[0].Wait <= 0 {
		t.Fatalf("before any sample: %+v, want a wait", st)
	}
	r.sample(0, 1, 0, 1, 2)
	first := r.next()
	if len(first) < 2 || first[0].Fault != "partition" || first[0].Target == nil || first[0].Target.Role != nemesis.RoleLeader {
		t.Fatalf("first strike: %s, want the leader cut from its followers, then its settle", liveText(first))
	}
	r.sample(0, 1, 0)
	second := r.next()
	if len(second) < 2 || second[0].Fault == "partition" || second[0].Target == nil || second[0].Target.Role != nemesis.RoleLeader {
		t.Fatalf("second strike: %s, want the isolated leader taken", liveText(second))
	}
	r.sample(-1, 1, 0)
	heal := r.next()
	if len(heal) != 2 || heal[0].Heal == "" {
		t.Fatalf("two strikes holding: %s, want a heal and its margin", liveText(heal))
	}
	r.now = r.now.Add(time.Hour)
	if st := r.next(); st != nil {
		t.Errorf("past the duration: %s, want the end (what holds is the final heal's)", liveText(st))
	}
	s, choices, err := r.ch.played(untargetedWeak(t), 7)
	if err != nil {
		t.Fatal(err)
	}
	// The margin and the wait for a sample are one wait in the replay.
	if len(s.Nemesis.Steps) != len(r.played)-1 || s.Nemesis.Steps[0].Wait != r.played[0].Wait+r.played[1].Wait ||
		s.Nemesis.Random != nil || s.Nemesis.Live != nil || s.Seed != 7 {
		t.Errorf("played scenario: %d steps (chose %d: %s), random %v, live %v, seed %d", len(s.Nemesis.Steps), len(r.played),
			liveText(s.Nemesis.Steps), s.Nemesis.Random, s.Nemesis.Live, s.Seed)
	}
	if len(choices) != 3 || !strings.Contains(choices[0].State, "isr=full") || !strings.Contains(choices[1].State, "isr=at-min") || !choices[0].Untried {
		t.Errorf("choices %+v", choices)
	}
	if strings.Contains(choices[0].State, "after ") {
		t.Errorf("a live choice aimed at a guessed state: %+v", choices[0])
	}
}

// TestLiveChooserDeterministic: the same seed, history and samples choose
// the same steps; what the runs before covered changes the first choice
// (the arm it struck is tried there now).
func TestLiveChooserDeterministic(t *testing.T) {
	play := func(history []*states.Coverage) string {
		r := newLiveRig(t, 3, history)
		r.next()
		r.sample(0, 1, 0, 1, 2)
		a := liveText(r.next())
		r.sample(0, 1, 0, 1)
		return a + " | " + liveText(r.next())
	}
	one, two := play(nil), play(nil)
	if one != two {
		t.Errorf("same inputs, other steps:\n%s\n%s", one, two)
	}
	full := states.State{ISR: states.ISRFull, Leader: states.LeaderAlive, ELR: states.ELREmpty, Election: states.ElectionNone,
		Truncation: states.TruncNone, Quorum: states.Unknown, Coordinator: states.Unknown}
	cut := full
	cut.ISR = states.ISRAtMin
	var cov states.Coverage
	cov.Add(&states.Coverage{Runs: 1, Transitions: []states.Covered{
		{Before: full.String(), Fault: "partition-leader-followers", Role: "links-of-leader", After: cut.String(), Count: 1},
		{Before: cut.String(), Fault: "kill", Role: states.RoleLeader, After: cut.String(), Count: 1},
	}})
	if other := play([]*states.Coverage{&cov}); strings.HasPrefix(other, strings.SplitN(one, " | ", 2)[0]) {
		t.Errorf("the cut tried from the healthy state, chosen there first again: %s", other)
	}
}

// TestLiveExploreLoop: an exploration with --strategy live against the
// model (kafkaModel plays what the chooser chooses, its events through
// a recorder's tap): every run's played schedule is a scripted scenario
// in schedules/ and in the run's folder, its choices (every one aimed at
// a state the model showed) in explore.json, and the model's loss is
// found and kept with a repro that loads.
func TestLiveExploreLoop(t *testing.T) {
	base := untargetedWeak(t)
	clock := time.Unix(0, 0)
	tick := func() time.Time { clock = clock.Add(time.Second); return clock }
	sum, dir, err := explore(context.Background(), Config{Scenario: base, Runs: 6, Seed: 5, Store: t.TempDir(),
		NoShrink: true, Strategy: StrategyLive, Now: tick}, kafkaModel(t))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Strategy != StrategyLive || sum.Transitions == 0 || len(sum.RunRecords) != 6 {
		t.Fatalf("strategy %q, %d transitions, %d runs", sum.Strategy, sum.Transitions, len(sum.RunRecords))
	}
	for _, r := range sum.RunRecords {
		if len(r.Guided) == 0 || r.CoverageErr != "" || r.Err != "" {
			t.Errorf("run %d: choices %v, coverage error %q, error %q", r.Index, r.Guided, r.CoverageErr, r.Err)
		}
		for _, c := range r.Guided {
			if strings.HasPrefix(c.State, "after ") || c.Moment != "live" {
				t.Errorf("run %d: choice %+v: aimed at a guessed state", r.Index, c)
			}
		}
		s, err := scenario.Load(filepath.Join(dir, "schedules", "run-"+pad3(r.Index)+".yaml"), nil)
		if err != nil || s.Nemesis.Random != nil || len(s.Nemesis.Steps) == 0 || s.Seed != r.Seed {
			t.Errorf("run %d: recorded schedule %v", r.Index, err)
		}
	}
	if len(sum.Findings) == 0 {
		t.Fatal("no finding in 6 runs: the sequence-loss prior holds in the first")
	}
	f := sum.Findings[0]
	if f.Steps == 0 || f.Err != "" {
		t.Errorf("finding %s: %d fault steps, error %q", f.ID, f.Steps, f.Err)
	}
	for _, name := range []string{"original.yaml", filepath.Join("original-run", "scenario.yaml")} {
		s, err := scenario.Load(filepath.Join(dir, f.Dir, name), nil)
		if err != nil || len(s.Nemesis.Steps) == 0 {
			t.Errorf("finding %s: %s: %v (a live run's repro must hold the steps it played)", f.ID, name, err)
		}
	}
}

// TestLiveChooserTimeLeft: near the duration's end the chooser strikes
// only what settles in the time left, heals what holds while its margin
// fits, and ends once nothing fits, so that a live run takes the random
// section's duration and no more.
func TestLiveChooserTimeLeft(t *testing.T) {
	r := newLiveRig(t, 1, nil)
	r.next()
	r.sample(0, 1, 0, 1, 2)
	if st := r.next(); len(st) == 0 || st[0].Fault == "" {
		t.Fatalf("with the whole duration left: %s, want a strike", liveText(st))
	}
	r.now = r.ch.begin.Add(r.ch.duration - 3*time.Second) // no settle fits in 3 s; a heal's margin does
	if st := r.next(); len(st) == 0 || st[0].Heal == "" {
		t.Fatalf("3 s left, a strike holding: %s, want its heal", liveText(st))
	}
	if st := r.next(); st != nil {
		t.Errorf("3 s left, nothing holding: %s, want the end", liveText(st))
	}
}
