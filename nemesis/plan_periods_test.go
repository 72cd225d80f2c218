package nemesis

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

func periods(seed int64, subset int, faults ...string) RandomSchedule {
	return RandomSchedule{Seed: seed, Subset: subset, Active: Duration(10 * time.Second), Quiet: Duration(5 * time.Second),
		Duration: Duration(2 * time.Minute), Faults: faults}
}

var allRandom = []string{histories.FPause, histories.FKill, histories.FRestart, histories.FLoseUnflushed, "partition", "partition-racks", "partition-leader-followers"}

// TestRandomSameSeedSameSchedule: in both modes a seed plans the same
// steps whatever the order of the brokers, and different seeds plan
// different steps.
func TestRandomSameSeedSameSchedule(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		schedule func(seed int64, subset int, faults ...string) RandomSchedule
	}{{"periods", periods}, {"staggered", staggered}} {
		t.Run(tc.mode, func(t *testing.T) {
			a, err := PlanRandom(tc.schedule(42, 2, allRandom...), brokers)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := PlanRandom(tc.schedule(42, 2, allRandom...), []int32{2, 1, 0})
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("same seed, different plans:\n%v\n%v", a, b)
			}
			seen := map[string]bool{}
			for seed := int64(0); seed < 8; seed++ {
				p, _ := PlanRandom(tc.schedule(seed, 2, allRandom...), brokers)
				j, _ := json.Marshal(p)
				seen[string(j)] = true
			}
			if len(seen) < 7 {
				t.Errorf("8 seeds gave only %d distinct plans", len(seen))
			}
		})
	}
}

// periodSteps are the steps of period i of p.
func periodSteps(p Planned, i int) []Step {
	end := len(p.Steps)
	if i+1 < len(p.Periods) {
		end = p.Periods[i+1].FirstStep
	}
	return p.Steps[p.Periods[i].FirstStep:end]
}

// TestPeriodsShape: every period injects Subset distinct faults of the
// mix, holds them Active, heals each kind once, and is quiet for Quiet;
// over a long run the periods draw many different combinations.
func TestPeriodsShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rs     RandomSchedule
		n      int
		subset int
	}{
		{"pairs", periods(1, 2, allRandom...), 8, 2},
		{"triples, repeated names count once", periods(2, 3, histories.FKill, histories.FKill, histories.FPause, "partition-racks", histories.FRestart), 8, 3},
		{"default subset", RandomSchedule{Seed: 3, Active: Duration(time.Second), Duration: Duration(3 * time.Second), Faults: []string{histories.FPause, histories.FKill}}, 3, 1},
		{"all of them", periods(4, 2, histories.FPause, histories.FKill), 8, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanRandom(tc.rs, brokers)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Periods) != tc.n {
				t.Fatalf("%d periods, want %d", len(p.Periods), tc.n)
			}
			combos := map[string]bool{}
			var total time.Duration
			for _, st := range p.Steps {
				total += st.Wait.Std()
			}
			if want := time.Duration(tc.n) * (tc.rs.Active + tc.rs.Quiet).Std(); total != want {
				t.Errorf("waits add up to %s, want %s", total, want)
			}
			for i, per := range p.Periods {
				steps := periodSteps(p, i)
				if len(per.Faults) != tc.subset || len(slices.Compact(slices.Sorted(slices.Values(per.Faults)))) != tc.subset {
					t.Errorf("period %d drew %v, want %d distinct", i, per.Faults, tc.subset)
				}
				combos[strings.Join(slices.Sorted(slices.Values(per.Faults)), "+")] = true
				var heals []string
				for j, st := range steps[:tc.subset] {
					fault, shape, _ := randomFault(per.Faults[j])
					if st.Fault != fault || shapeOf(st) != shape {
						t.Errorf("period %d step %d: %+v, want %s %s", i, j, st, fault, shape)
					}
					if err := (&Schedule{Steps: []Step{st}}).Validate(); err != nil {
						t.Errorf("period %d step %d invalid: %v", i, j, err)
					}
					if h := healFor(fault); h != "" && !slices.Contains(heals, h) {
						heals = append(heals, h)
					}
				}
				rest := steps[tc.subset:]
				if rest[0].Wait != tc.rs.Active {
					t.Errorf("period %d: hold %+v, want wait %s", i, rest[0], tc.rs.Active)
				}
				var got []string
				for _, st := range rest[1:] {
					if st.Heal != "" {
						got = append(got, st.Heal)
					}
				}
				if !slices.Equal(got, heals) {
					t.Errorf("period %d heals %v, want %v", i, got, heals)
				}
				if q := rest[len(rest)-1]; tc.rs.Quiet > 0 && q.Wait != tc.rs.Quiet {
					t.Errorf("period %d ends with %+v, want quiet %s", i, q, tc.rs.Quiet)
				}
			}
			if tc.n >= 8 && tc.subset == 2 && len(allRandom) == len(tc.rs.Faults) && len(combos) < 5 {
				t.Errorf("8 periods explored only %d combinations: %v", len(combos), combos)
			}
		})
	}
}

// TestPeriodsPinned pins one seed's expansion: if it changes, recorded
// seeds no longer replay their runs.
func TestPeriodsPinned(t *testing.T) {
	p, err := PlanRandom(RandomSchedule{Seed: 7, Subset: 2, Active: Duration(4 * time.Second), Quiet: Duration(2 * time.Second),
		Duration: Duration(12 * time.Second), Faults: []string{histories.FPause, histories.FKill, "partition-racks"}}, brokers)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(p)
	const want = `{"steps":[{"fault":"kill","target":{"role":"nodes","nodes":[2]}},{"fault":"pause","target":{"role":"nodes","nodes":[0]}},{"wait":"4s"},{"heal":"kill"},{"heal":"pause"},{"wait":"2s"},` +
		`{"fault":"pause","target":{"role":"nodes","nodes":[2]}},{"fault":"kill","target":{"role":"nodes","nodes":[1]}},{"wait":"4s"},{"heal":"pause"},{"heal":"kill"},{"wait":"2s"}],` +
		`"periods":[{"faults":["kill","pause"],"first_step":0},{"faults":["pause","kill"],"first_step":6}]}`
	if string(got) != want {
		t.Errorf("plan of seed 7:\n got %s\nwant %s", got, want)
	}
}

// TestRandomValidate: the fields of the periods and staggered modes.
func TestRandomValidate(t *testing.T) {
	sec := func(n int) Duration { return Duration(time.Duration(n) * time.Second) }
	for _, tc := range []struct {
		name string
		rs   RandomSchedule
		err  string
	}{
		{"subset too large", RandomSchedule{Subset: 3, Active: sec(1), Duration: sec(5), Faults: []string{histories.FKill, histories.FKill, histories.FPause}},
			"nemesis.random.subset: 3 faults per period, but the mix names only 2 distinct"},
		{"interval and active", RandomSchedule{Interval: sec(1), Active: sec(1), Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.interval: not with active"},
		{"subset without active", RandomSchedule{Interval: sec(1), Subset: 2, Duration: sec(5), Faults: []string{histories.FKill, histories.FPause}},
			"nemesis.random.subset: only with active"},
		{"quiet without active", RandomSchedule{Interval: sec(1), Quiet: sec(1), Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.quiet: only with active"},
		{"negative quiet", RandomSchedule{Active: sec(2), Quiet: -sec(1), Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.quiet: must not be negative"},
		{"negative subset", RandomSchedule{Active: sec(2), Subset: -1, Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.subset: must not be negative"},
		{"shorter than a period", RandomSchedule{Active: sec(4), Quiet: sec(2), Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.duration: 5s is shorter than one period (active 4s + quiet 2s)"},
		{"neither", RandomSchedule{Duration: sec(5), Faults: []string{histories.FKill}}, "nemesis.random.interval: must be positive (or give active and quiet"},
		{"stagger without active", RandomSchedule{Interval: sec(1), Stagger: sec(1), Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.stagger: only with active"},
		{"negative stagger", RandomSchedule{Active: sec(2), Stagger: -sec(1), Duration: sec(5), Faults: []string{histories.FKill}},
			"nemesis.random.stagger: must not be negative"},
		{"shorter than a staggered period", RandomSchedule{Active: sec(4), Quiet: sec(2), Stagger: sec(3), Subset: 2, Duration: sec(8),
			Faults: []string{histories.FKill, histories.FPause}},
			"nemesis.random.duration: 8s is shorter than one period (active 4s + quiet 2s + 1 stagger gaps of 3s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Schedule{Random: &tc.rs}).Validate()
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
	s, err := ParseSchedule([]byte("random: {seed: 3, faults: [kill, pause], subset: 2, active: 10s, quiet: 5s, duration: 60s}\n"))
	if err != nil || s.Random.Subset != 2 || s.Random.Active != sec(10) || s.Random.Quiet != sec(5) {
		t.Errorf("yaml: %+v %v", s.Random, err)
	}
	s, err = ParseSchedule([]byte("random: {seed: 3, faults: [kill, pause], subset: 2, active: 10s, quiet: 5s, stagger: 4s, duration: 60s}\n"))
	if err != nil || s.Random.Stagger != sec(4) {
		t.Errorf("yaml with stagger: %+v %v", s.Random, err)
	}
}

// TestRunnerRecordsPeriods: a periods schedule on the fake cluster records
// its mode, subset, timing and each period's draw in the schedule op, and
// injects exactly the plan's faults.
func TestRunnerRecordsPeriods(t *testing.T) {
	rs := RandomSchedule{Seed: 11, Subset: 2, Active: Duration(40 * time.Millisecond), Quiet: Duration(20 * time.Millisecond),
		Duration: Duration(180 * time.Millisecond), Faults: []string{histories.FPause, histories.FKill, "partition-racks"}}
	plan, err := PlanRandom(rs, brokers)
	if err != nil {
		t.Fatal(err)
	}
	evs := runRandom(t, rs)
	var sched histories.NemesisValue
	if err := evs[1].Decode(&sched); err != nil || evs[1].F != histories.FSchedule {
		t.Fatalf("schedule op: %s %v", evs[1].Value, err)
	}
	d := sched.Details
	if d["mode"] != "random-periods" || d["seed"] != float64(11) || d["subset"] != float64(2) || d["active"] != "40ms" || d["quiet"] != "20ms" {
		t.Errorf("schedule details %v", d)
	}
	want, _ := json.Marshal(plan.Periods)
	got, _ := json.Marshal(d["periods"])
	if string(got) != string(want) || len(plan.Periods) != 3 {
		t.Errorf("periods recorded %s, want %s", got, want)
	}
	var injected []string
	for _, e := range evs[2 : len(evs)-2] {
		if e.Type == histories.Invoke && e.F != histories.FHeal {
			injected = append(injected, e.F)
		}
	}
	var planned []string
	for _, st := range plan.Steps {
		if st.Fault != "" {
			planned = append(planned, st.Fault)
		}
	}
	if !slices.Equal(injected, planned) {
		t.Errorf("injected %v, want %v", injected, planned)
	}
}
