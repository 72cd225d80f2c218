package explore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/network"
)

// simOracle is a simulated cluster: a run shows lost-write when the
// schedule kills node 0 while a partition holds (a partition step before
// the kill, with at least minGap of waiting between them), with
// probability p per run (a seeded draw), else nothing.
type simOracle struct {
	p      float64
	rng    *rand.Rand
	minGap time.Duration
	runs   int
	clock  *fakeClock
	// confirms counts the runs told they are final reruns; a run told so
	// before a candidate's is an error (confirmedEarly).
	confirms       int
	confirmedEarly bool
}

func (o *simOracle) Run(_ context.Context, s *scenario.Scenario, confirm bool) ([]string, error) {
	o.runs++
	if confirm {
		o.confirms++
	} else if o.confirms > 0 {
		o.confirmedEarly = true
	}
	if o.clock != nil {
		o.clock.now = o.clock.now.Add(time.Minute)
	}
	partition, gap := false, time.Duration(0)
	hit := false
	for _, st := range s.Nemesis.Steps {
		switch {
		case st.Fault == "partition":
			partition, gap = true, 0
		case st.Wait > 0 && partition:
			gap += st.Wait.Std()
		case st.Fault == "kill" && partition && gap >= o.minGap && st.Target != nil && slices.Contains(st.Target.Nodes, 0):
			hit = true
		case st.Heal == "partition":
			partition = false
		}
	}
	if s.Workload.Duration.Std() < 10*time.Second {
		hit = false // the simulated anomaly needs 10 s of writes
	}
	if hit && (o.p >= 1 || o.rng.Float64() < o.p) {
		return []string{"lost-write", "offset-reuse"}, nil
	}
	return nil, nil
}

type fakeClock struct{ now time.Time }

// noisy is a repro of eight fault steps of which two matter (a partition
// and, 4 s later, a kill of nodes 0 and 2), with long waits.
func noisy(t *testing.T) *scenario.Scenario {
	t.Helper()
	base, err := scenario.Load("s2", []string{"workload.duration=60s"})
	if err != nil {
		t.Fatal(err)
	}
	text := `
- {wait: 8s}
- {fault: pause, target: {role: nodes, nodes: [1]}}
- {wait: 6s}
- {heal: pause}
- {fault: restart, target: {role: nodes, nodes: [2]}}
- {fault: partition, shape: leader-followers, target: {role: leader}}
- {wait: 2s}
- {fault: netem, shape: isolate, target: {role: nodes, nodes: [1]}, netem: {loss: 10%}}
- {wait: 6s}
- {fault: kill, target: {role: nodes, nodes: [0, 2]}}
- {wait: 10s}
- {fault: cut-clients, target: {role: nodes, nodes: [1]}}
- {wait: 4s}
- {heal: partition}
- {heal: netem}
- {fault: pause, target: {role: nodes, nodes: [2]}}
- {wait: 5s}
- {heal: all}
- {fault: lose-unflushed, target: {role: nodes, nodes: [1]}}
- {wait: 3s}
`
	var sched nemesis.Schedule
	sched, err = nemesis.ParseSchedule([]byte("steps:" + strings.ReplaceAll(text, "\n-", "\n  -")))
	if err != nil {
		t.Fatal(err)
	}
	r, err := repro(base, sched.Steps, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func faultsOf(s *scenario.Scenario) []string {
	var out []string
	for _, st := range s.Nemesis.Steps {
		if st.Fault != "" {
			out = append(out, st.Fault)
		}
	}
	return out
}

// TestShrinkDeterministicOracle: an oracle that always reproduces when
// the two steps that matter are there: the shrink keeps exactly them,
// cuts the wait between them to the 4 s the anomaly needs (the bisection
// of the 8 s between them: without it, 4 s, 2 s refused), the workload to
// what it needs, the kill's targets to node 0, and reruns the result K
// times: 3/3.
func TestShrinkDeterministicOracle(t *testing.T) {
	o := &simOracle{p: 1, minGap: 4 * time.Second}
	res, err := shrink(context.Background(), o, noisy(t), shrinkOptions{Class: "lost-write"})
	if err != nil {
		t.Fatal(err)
	}
	if got := faultsOf(res.Scenario); !slices.Equal(got, []string{"partition", "kill"}) {
		t.Fatalf("faults kept %v, want [partition kill]\ntrail:\n%s", got, strings.Join(res.Trail, "\n"))
	}
	var gap time.Duration
	var kill *nemesis.Step
	for i, st := range res.Scenario.Nemesis.Steps {
		if st.Wait > 0 {
			gap += st.Wait.Std()
		}
		if st.Fault == "kill" {
			kill = &res.Scenario.Nemesis.Steps[i]
		}
		if st.Fault == "partition" {
			gap = 0
		}
	}
	if gap < 4*time.Second || gap >= 6*time.Second {
		t.Errorf("wait between partition and kill %s, want at least the 4 s needed and shorter than the 6 s given", gap)
	}
	if !slices.Equal(kill.Target.Nodes, []int32{0}) {
		t.Errorf("kill targets %v, want [0]", kill.Target.Nodes)
	}
	if d := res.Scenario.Workload.Duration.Std(); d < 10*time.Second || d >= 20*time.Second {
		t.Errorf("workload.duration %s, want 10 s <= d < 20 s (halved from 60 s while it reproduced)", d)
	}
	if res.rate() != "3/3" || res.Runs != o.runs || res.OutOfBudget {
		t.Errorf("rate %s, runs %d (oracle saw %d), out of budget %v", res.rate(), res.Runs, o.runs, res.OutOfBudget)
	}
	// Only the final reruns are told so (they run on fresh clusters),
	// and they come last.
	if o.confirms != DefaultTries || o.confirmedEarly {
		t.Errorf("%d runs told they are final reruns (one before a candidate: %v), want the last %d", o.confirms, o.confirmedEarly, DefaultTries)
	}
	// The shrunk repro is still a valid scenario: it loads as repro.yaml.
	if _, err := repro(res.Scenario, res.Scenario.Nemesis.Steps, ""); err != nil {
		t.Errorf("the shrunk repro does not validate: %v", err)
	}
}

// TestShrinkFlakyOracle: an oracle that reproduces with probability 1/2
// (seeded). Soundness: over many seeds a step the anomaly needs is never
// dropped (it cannot reproduce without it), and the rate is what the
// final reruns gave. Power: with K = 3 a needless step survives a try
// only 1/8 of the time, so most shrinks still reach the two steps.
func TestShrinkFlakyOracle(t *testing.T) {
	minimal := 0
	const seeds = 40
	for seed := range uint64(seeds) {
		o := &simOracle{p: 0.5, rng: rand.New(rand.NewPCG(seed, 7)), minGap: 4 * time.Second}
		res, err := shrink(context.Background(), o, noisy(t), shrinkOptions{Class: "lost-write"})
		if err != nil {
			t.Fatal(err)
		}
		got := faultsOf(res.Scenario)
		if !slices.Contains(got, "partition") || !slices.Contains(got, "kill") {
			t.Fatalf("seed %d: a needed step was dropped: %v", seed, got)
		}
		if res.Confirmations != DefaultTries || res.Reproduced > res.Confirmations {
			t.Fatalf("seed %d: rate %s", seed, res.rate())
		}
		if len(got) == 2 {
			minimal++
		}
	}
	if minimal < seeds/2 {
		t.Errorf("only %d of %d flaky shrinks reached the two needed steps", minimal, seeds)
	}
}

// TestShrinkKeepsWhatNeverReproducesWithout: a class the candidates never
// show (a one-off) leaves the repro as it was: nothing is dropped on a
// run that did not reproduce.
func TestShrinkKeepsWhatNeverReproducesWithout(t *testing.T) {
	s := noisy(t)
	o := &simOracle{p: 1, minGap: 4 * time.Second}
	res, err := shrink(context.Background(), o, s, shrinkOptions{Class: "txn-g1c"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(faultsOf(res.Scenario), faultsOf(s)) || res.Reproduced != 0 {
		t.Errorf("faults %v, rate %s; want the repro unchanged and 0/3", faultsOf(res.Scenario), res.rate())
	}
}

// TestShrinkBudget: the search stops at its time budget (each simulated
// run takes a minute), then reruns the result K times.
func TestShrinkBudget(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	o := &simOracle{p: 1, minGap: 4 * time.Second, clock: clock}
	res, err := shrink(context.Background(), o, noisy(t), shrinkOptions{Class: "lost-write",
		Budget: 5 * time.Minute, Now: func() time.Time { return clock.now }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OutOfBudget || res.Runs != 5+DefaultTries || res.Elapsed != time.Duration(res.Runs)*time.Minute {
		t.Errorf("out of budget %v, runs %d, elapsed %s; want true, 5 + %d, a minute a run", res.OutOfBudget, res.Runs, res.Elapsed, DefaultTries)
	}
}

// TestShrinkCancelled: a cancelled context ends the shrink with its error.
func TestShrinkCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := shrink(ctx, &simOracle{p: 1}, noisy(t), shrinkOptions{Class: "lost-write"}); err == nil {
		t.Fatal("no error from a cancelled shrink")
	}
}

// TestTidy: dropping a fault drops the heal only it needed and joins the
// waits left side by side.
func TestTidy(t *testing.T) {
	steps := []nemesis.Step{
		{Fault: "pause", Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1}}},
		{Wait: nemesis.Duration(2 * time.Second)},
		{Fault: "kill", Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}},
		{Wait: nemesis.Duration(3 * time.Second)},
		{Heal: "pause"},
		{Heal: "kill"},
	}
	got := tidy(steps, []int{0})
	if len(got) != 3 || got[1].Wait.Std() != 5*time.Second || got[2].Heal != "pause" {
		t.Errorf("tidy kept %+v", got)
	}
	if got := tidy(steps, nil); len(got) != 1 || got[0].Wait.Std() != 5*time.Second {
		t.Errorf("tidy without faults kept %+v", got)
	}
	// Two periods of partition + kill, the second's faults dropped (a
	// real shrink's, 2026-12-02): its heals heal nothing and go too.
	cut := nemesis.Step{Fault: "partition", Params: &network.PartitionParams{Shape: nemesis.ShapeLeaderFollowers}, Target: &nemesis.Target{Role: nemesis.RoleLeader}}
	kill := nemesis.Step{Fault: "kill", Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}}
	wait := nemesis.Step{Wait: nemesis.Duration(5 * time.Second)}
	two := []nemesis.Step{cut, wait, kill, wait, {Heal: "partition"}, wait, {Heal: "kill"}, wait,
		kill, wait, cut, wait, {Heal: "kill"}, wait, {Heal: "partition"}, wait}
	got = tidy(two, []int{0, 2})
	var heals []string
	for _, st := range got {
		if st.Heal != "" {
			heals = append(heals, st.Heal)
		}
	}
	if !slices.Equal(heals, []string{"partition", "kill"}) || got[len(got)-1].Wait.Std() != 25*time.Second {
		t.Errorf("tidy of two periods kept heals %v: %+v", heals, got)
	}
	// heal all heals what is pending, and nothing after it.
	all := []nemesis.Step{kill, {Heal: histories.HealAll}, {Heal: "kill"}, {Heal: histories.HealAll}}
	if got := tidy(all, []int{0}); len(got) != 2 || got[1].Heal != histories.HealAll {
		t.Errorf("tidy kept %+v, want the kill and one heal all", got)
	}
	// An until waits for the effect of the fault before it: it goes with
	// that fault, and stays with a kept one.
	shrunk := nemesis.Step{Until: &nemesis.Condition{ISR: []int32{0}}, Timeout: nemesis.Duration(6 * time.Second), Optional: true}
	fenced := nemesis.Step{Until: &nemesis.Condition{Struck: nemesis.StruckFenced}, Timeout: nemesis.Duration(3 * time.Second), Optional: true}
	withUntils := []nemesis.Step{cut, shrunk, wait, kill, fenced, wait, {Heal: histories.HealAll}}
	for _, tc := range []struct {
		keep []int
		want []*nemesis.Condition
	}{
		{[]int{0, 3}, []*nemesis.Condition{shrunk.Until, fenced.Until}},
		{[]int{3}, []*nemesis.Condition{fenced.Until}},
		{[]int{0}, []*nemesis.Condition{shrunk.Until}},
		{nil, nil},
	} {
		var untils []*nemesis.Condition
		for _, st := range tidy(withUntils, tc.keep) {
			if st.Until != nil {
				untils = append(untils, st.Until)
			}
		}
		if !slices.Equal(untils, tc.want) {
			t.Errorf("tidy keeping faults %v kept untils %v, want %v", tc.keep, untils, tc.want)
		}
	}
}

// orderOracle reproduces when every fault of needed is in the candidate,
// and records each candidate's faults ("kill@0") in the order tried.
type orderOracle struct {
	needed []string
	tried  [][]string
}

func (o *orderOracle) Run(_ context.Context, s *scenario.Scenario, _ bool) ([]string, error) {
	var got []string
	for _, st := range s.Nemesis.Steps {
		if st.Fault != "" {
			got = append(got, fmt.Sprintf("%s@%d", st.Fault, st.Target.Nodes[0]))
		}
	}
	o.tried = append(o.tried, got)
	for _, n := range o.needed {
		if !slices.Contains(got, n) {
			return nil, nil
		}
	}
	return []string{"lost-write"}, nil
}

// TestShrinkFaultOrder: the candidates of the fault phase, in order, for
// four fault steps a b c d (ddmin: halves, then quarters; a subset
// refused once is not run again; the empty schedule is never one).
func TestShrinkFaultOrder(t *testing.T) {
	on := func(f string, n int32) nemesis.Step {
		return nemesis.Step{Fault: f, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{n}}}
	}
	wait := nemesis.Step{Wait: nemesis.Duration(time.Second)}
	steps := []nemesis.Step{on("kill", 0), wait, on("pause", 1), wait, on("kill", 2), wait, on("pause", 0), wait, {Heal: histories.HealAll}}
	base, err := scenario.Load("s2", nil)
	if err != nil {
		t.Fatal(err)
	}
	const a, b, c, d = "kill@0", "pause@1", "kill@2", "pause@0"
	for _, tc := range []struct {
		name   string
		needed []string
		want   [][]string
		kept   []string
	}{
		{"one needed, last", []string{d}, [][]string{{c, d}, {d}}, []string{d}},
		{"none needed: one fault stays", nil, [][]string{{c, d}, {d}}, []string{d}},
		{"one needed, first", []string{a}, [][]string{{c, d}, {a, b}, {b}, {a}}, []string{a}},
		{"two needed, apart", []string{a, d},
			// [c d] refused in the first round is not run again when
			// the quarters come back to it.
			[][]string{{c, d}, {a, b}, {b, c, d}, {a, c, d}, {a, d}, {d}, {a}}, []string{a, d}},
		{"all needed", []string{a, b, c, d},
			[][]string{{c, d}, {a, b}, {b, c, d}, {a, c, d}, {a, b, d}, {a, b, c}}, []string{a, b, c, d}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &orderOracle{needed: tc.needed}
			sh := &shrinker{o: o, opts: shrinkOptions{Class: "lost-write", Tries: 1, Now: time.Now}, begin: time.Now(), res: &shrunk{}}
			got, err := sh.faults(context.Background(), withSteps(base, steps))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(o.tried, tc.want, slices.Equal) {
				t.Errorf("candidates %v, want %v", o.tried, tc.want)
			}
			o.tried = nil
			_, _ = o.Run(context.Background(), got, false)
			if !slices.Equal(o.tried[0], tc.kept) {
				t.Errorf("kept %v, want %v", o.tried[0], tc.kept)
			}
		})
	}
}

// failingReruns fails its first n final reruns before their check (a
// cluster that would not start), then is its simOracle.
type failingReruns struct {
	*simOracle
	n int
}

func (o *failingReruns) Run(ctx context.Context, s *scenario.Scenario, confirm bool) ([]string, error) {
	if confirm && o.n > 0 {
		o.n--
		return nil, fmt.Errorf("cluster: did not start")
	}
	return o.simOracle.Run(ctx, s, confirm)
}

// TestShrinkRateOverJudgedReruns: a final rerun that failed before its
// check is no rerun that did not reproduce: the rate is over the others
// and says how many failed.
func TestShrinkRateOverJudgedReruns(t *testing.T) {
	for _, c := range []struct {
		failed int
		want   string
	}{
		{0, "3/3"},
		{1, "2/2 (1 more failed before their check)"},
		{3, "0/0 (3 more failed before their check)"},
	} {
		o := &failingReruns{simOracle: &simOracle{p: 1, minGap: 4 * time.Second}, n: c.failed}
		res, err := shrink(context.Background(), o, noisy(t), shrinkOptions{Class: "lost-write"})
		if err != nil {
			t.Fatal(err)
		}
		if res.rate() != c.want || res.Confirmations != DefaultTries || res.Failed != c.failed {
			t.Errorf("%d failed: rate %q (%d reruns, %d failed), want %q", c.failed, res.rate(), res.Confirmations, res.Failed, c.want)
		}
	}
}
