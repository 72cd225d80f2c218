package explore

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
)

func load(t *testing.T, name string, sets ...string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// explorable loads name with sets and makes it explorable with the
// default mix.
func explorable(t *testing.T, name string, sets ...string) *scenario.Scenario {
	t.Helper()
	e, err := Explorable(load(t, name, sets...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestExplorableDefaultMix: a scripted scenario explores the default mix
// (every fault the Docker backend can do, nemesis.RandomMix) in Jepsen's
// periods, its steps dropped; --faults replaces the mix.
func TestExplorableDefaultMix(t *testing.T) {
	s := load(t, "s2")
	e, err := Explorable(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := e.Nemesis.Random
	if r == nil || len(e.Nemesis.Steps) != 0 {
		t.Fatalf("nemesis %+v: want a random schedule and no steps", e.Nemesis)
	}
	if want := nemesis.RandomMix(s.Cluster.Capabilities(), len(s.Cluster.Racks), s.Cluster.Controllers); !slices.Equal(r.Faults, want) {
		t.Errorf("mix %v, want %v", r.Faults, want)
	}
	if r.Subset != defaultSubset || r.Active.Std() != defaultActive || r.Quiet.Std() != defaultQuiet || r.Stagger.Std() != defaultStagger {
		t.Errorf("periods %d × %s + %s, stagger %s", r.Subset, r.Active, r.Quiet, r.Stagger)
	}
	e, err = Explorable(s, []string{"kill", "partition-leader-followers"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Nemesis.Random.Faults, []string{"kill", "partition-leader-followers"}) {
		t.Errorf("--faults mix %v", e.Nemesis.Random.Faults)
	}
}

// TestExplorableRefuses: what the mix cannot drive is bad input naming
// the flag or the field.
func TestExplorableRefuses(t *testing.T) {
	sshOnlyProcesses := load(t, "s2")
	sshOnlyProcesses.Cluster.Backend = "ssh"
	for _, c := range []struct {
		name   string
		s      *scenario.Scenario
		faults []string
		want   string
	}{
		{"unknown fault", load(t, "s2"), []string{"kil"}, `--faults: "kil"`},
		{"not drawable", load(t, "s2"), []string{"set-config"}, `--faults: "set-config"`},
		{"racks without racks", load(t, "s2"), []string{"kill", "partition-racks"}, `--faults: "partition-racks": backend docker cannot apply it on this cluster (the cluster has 0 rack(s)`},
		{"backend lacks it", sshOnlyProcesses, []string{"netem-clients"}, `--faults: "netem-clients": backend ssh`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Explorable(c.s, c.faults)
			var bad *scenario.BadInputError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want bad input naming %q", err, c.want)
			}
		})
	}
}

// TestSchedulesPerSeed: the same run seed draws the same schedule, a
// different one another; run seeds are a pure function of (base, i).
func TestSchedulesPerSeed(t *testing.T) {
	e := explorable(t, "s2", "workload.duration=60s")
	brokers := []int32{0, 1, 2}
	plan := func(seed int64) string {
		r := withSeed(e, seed)
		if r.Seed != seed || r.Nemesis.Random.Seed != seed {
			t.Fatalf("seed %d: scenario seed %d, schedule seed %d", seed, r.Seed, r.Nemesis.Random.Seed)
		}
		p, err := nemesis.PlanRandom(*r.Nemesis.Random, brokers)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, st := range p.Steps {
			j, _ := st.MarshalJSON()
			b.Write(j)
		}
		return b.String()
	}
	seen := map[string]int64{}
	for i := range 20 {
		seed := runSeed(42, i)
		if seed != runSeed(42, i) || seed <= 0 || seed >= 1<<53 {
			t.Fatalf("RunSeed(42, %d) = %d: not deterministic or out of range", i, seed)
		}
		a, b := plan(seed), plan(seed)
		if a != b {
			t.Fatalf("seed %d drew two schedules", seed)
		}
		if other, dup := seen[a]; dup {
			t.Errorf("seeds %d and %d drew the same schedule", other, seed)
		}
		seen[a] = seed
	}
	if runSeed(42, 0) == runSeed(43, 0) {
		t.Error("two base seeds gave the same first run seed")
	}
}

// TestClasses: a finding is an invalid verdict or a broken invariant
// outcome check; a story's expectation of its own faults' effect (s2's
// "lost-write > 0 when unclean=true") is not one.
func TestClasses(t *testing.T) {
	// Explored, s2 keeps unclean off (its story's set-config is gone):
	// lost-write == 0 and offset-reuse == 0 apply.
	s2 := explorable(t, "s2")
	// With unclean on, only s2's story checks apply (lost-write > 0,
	// offset-reuse > 0, leader_after_fault == 1): none is an invariant.
	unclean, err := scenario.Load("s2", []string{"topic.configs.unclean.leader.election.enable=true"})
	if err != nil {
		t.Fatal(err)
	}
	s2unclean, err := Explorable(unclean, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A scenario of one's own whose outcome bounds the outage.
	bounded, err := scenario.Load("s2", []string{"outcome=[{check: \"offline_seconds <= 60\"}]"})
	if err != nil {
		t.Fatal(err)
	}
	zero := func() expect.Metrics {
		m := expect.Metrics{}
		for _, a := range expect.Anomalies {
			m[a] = 0
		}
		return m
	}
	lost := zero()
	lost["lost-write"], lost["offset-reuse"] = 3, 2
	dups := zero()
	dups["duplicate"] = 2
	// What the checker counts against validity with a producer that is
	// not idempotent, and with one that is.
	plain, idem := checker.CountsAgainst(false, false), checker.CountsAgainst(true, false)
	if slices.Contains(plain, "duplicate") || !slices.Contains(idem, "duplicate") || !slices.Contains(plain, "lost-write") {
		t.Fatalf("the checker counts %q without idempotence, %q with: the cases below assume duplicates count only with it", plain, idem)
	}
	for _, c := range []struct {
		name    string
		verdict checker.Verdict
		against []string
		m       expect.Metrics
		s       *scenario.Scenario
		want    []string
	}{
		{"valid, nothing broken", checker.Valid, plain, zero(), s2, nil},
		{"lost writes break the outcome too", checker.Invalid, plain, lost, s2,
			[]string{"lost-write", "offset-reuse", "outcome lost-write == 0 when unclean=false", "outcome offset-reuse == 0 when unclean=false"}},
		{"no outcome", checker.Invalid, plain, lost, nil, []string{"lost-write", "offset-reuse"}},
		{"unclean on, no loss: the story's expectations are no finding", checker.Valid, plain, zero(), s2unclean, nil},
		{"unclean on, loss: the anomalies alone", checker.Invalid, plain, lost, s2unclean, []string{"lost-write", "offset-reuse"}},
		{"an invariant broken on a valid run", checker.Valid, plain, withOffline(zero(), 75), bounded, []string{"outcome offline_seconds <= 60"}},
		{"an invariant held", checker.Valid, plain, withOffline(zero(), 12), bounded, nil},
		{"invalid without a named anomaly", checker.Invalid, plain, zero(), nil, []string{invalidClass}},
		// A duplicated Produce request with a producer that is not
		// idempotent writes the record twice: the checker reports the
		// duplicate and does not count it (campaign 2026-12-06, s2 under
		// duplicate-request); an idempotent producer's duplicate counts.
		{"a duplicate not counted against validity is no finding", checker.Valid, plain, dups, s2, nil},
		{"a duplicate counted against validity is one", checker.Invalid, idem, dups, s2, []string{"duplicate"}},
		{"a result from before counted_against_validity counts every anomaly", checker.Valid, nil, dups, nil, []string{"duplicate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := classes(&checker.Result{Valid: c.verdict, Against: c.against}, c.m, c.s)
			if !slices.Equal(got, c.want) {
				t.Errorf("classes %q, want %q", got, c.want)
			}
			if primary(got) != "" && primary(got) != got[0] {
				t.Errorf("primary %q", primary(got))
			}
		})
	}
}

func withOffline(m expect.Metrics, s float64) expect.Metrics {
	m[expect.OfflineSeconds] = s
	return m
}

// TestShard: N shards split items deterministically, disjoint and whole.
func TestShard(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		owner := map[int]int{}
		for i := 1; i <= n; i++ {
			sh, err := ParseShard(strings.Join([]string{itoa(i), itoa(n)}, "/"))
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range sh.items(20) {
				if o, dup := owner[item]; dup {
					t.Fatalf("%d/%d: item %d is also shard %d's", i, n, item, o)
				}
				owner[item] = i
			}
		}
		for i := 1; i <= n; i++ {
			sh := Shard{I: i, N: n}
			for from := range 20 {
				next := sh.Next(from)
				if !sh.owns(next) || next < from || next-from >= n {
					t.Fatalf("%d/%d: Next(%d) = %d", i, n, from, next)
				}
			}
		}
		if len(owner) != 20 {
			t.Errorf("%d shards cover %d of 20 items", n, len(owner))
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1/0", "a/b", "3", "-1/2"} {
		if _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("ParseShard(%q) = %v, want an error naming --shard", bad, err)
		}
	}
	if sh, _ := ParseShard(""); !sh.owns(5) || sh.String() != "" {
		t.Error("the empty shard is not the whole")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
