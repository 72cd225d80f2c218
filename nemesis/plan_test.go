package nemesis

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

func mix(seed int64, faults ...string) RandomSchedule {
	return RandomSchedule{Seed: seed, Interval: Duration(10 * time.Second),
		Duration: Duration(60 * time.Second), Faults: faults}
}

var brokers = []int32{0, 1, 2}

func TestPlanSameSeedSameSchedule(t *testing.T) {
	rs := mix(42, histories.FPause, histories.FKill, "partition-racks", histories.FRestart, histories.FLoseUnflushed, "partition-bridge", "partition-majority-minority")
	a, err := Plan(rs, brokers)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Plan(rs, []int32{2, 0, 1}) // order of the ids does not matter
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different plans:\n%v\n%v", a, b)
	}
	// Different seeds give different schedules (for this mix, surely).
	seen := map[string]bool{}
	for seed := int64(0); seed < 8; seed++ {
		p, _ := Plan(mix(seed, rs.Faults...), brokers)
		j, _ := json.Marshal(p)
		seen[string(j)] = true
	}
	if len(seen) < 6 {
		t.Errorf("8 seeds gave only %d distinct plans", len(seen))
	}
}

// TestPlanPinned pins the expansion of one seed: if it changes, recorded
// seeds no longer replay their runs.
func TestPlanPinned(t *testing.T) {
	p, err := Plan(RandomSchedule{Seed: 7, Interval: Duration(4 * time.Second),
		Duration: Duration(8 * time.Second), Faults: []string{histories.FPause, histories.FKill}}, brokers)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(p)
	const want = `[{"fault":"pause","target":{"role":"nodes","nodes":[1]}},{"wait":"2.563s"},{"heal":"pause"},{"wait":"1.437s"},` +
		`{"fault":"kill","target":{"role":"nodes","nodes":[0]}},{"wait":"3.686s"},{"heal":"kill"},{"wait":"314ms"}]`
	if string(got) != want {
		t.Errorf("plan of seed 7:\n got %s\nwant %s", got, want)
	}
}

func TestPlanShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rs     RandomSchedule
		cycles int
	}{
		{"default", mix(1, histories.FPause, histories.FKill, histories.FRestart, histories.FLoseUnflushed, "partition"), 6},
		{"partitions", mix(2, "partition-isolate", "partition-racks", "partition-leader-followers",
			"partition-from-controller", "partition-majority-minority", "partition-bridge"), 6},
		{"one cycle", RandomSchedule{Seed: 3, Interval: Duration(time.Second), Duration: Duration(1500 * time.Millisecond), Faults: []string{histories.FKill}}, 1},
		{"targets", RandomSchedule{Seed: 4, Interval: Duration(time.Second), Duration: Duration(5 * time.Second),
			Faults: []string{histories.FPause}, Targets: &Target{Role: RoleRandom, Count: 2}}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Plan(tc.rs, brokers)
			if err != nil {
				t.Fatal(err)
			}
			var total time.Duration
			faults := 0
			for i, st := range p {
				total += st.Wait.Std()
				if st.Fault == "" {
					continue
				}
				faults++
				if err := (&Schedule{Steps: []Step{st}}).Validate(); err != nil {
					t.Errorf("step %d invalid: %v", i, err)
				}
				if st.Target != nil && st.Target.Role == RoleRandom {
					t.Errorf("step %d: random target left for injection time: %+v", i, st.Target)
				}
				if st.Target != nil && st.Target.Role == RoleNodes && tc.rs.Targets != nil &&
					len(st.Target.Nodes) != tc.rs.Targets.Count {
					t.Errorf("step %d: %d nodes, want %d", i, len(st.Target.Nodes), tc.rs.Targets.Count)
				}
				// Each fault that needs undoing is healed before the next.
				if heal := healFor(st.Fault); heal != "" {
					if i+2 >= len(p) || p[i+1].Wait == 0 || p[i+2].Heal != heal {
						t.Errorf("step %d (%s) not followed by wait and heal %s: %+v", i, st.Fault, heal, p[i:])
					}
					if p[i+1].Wait < tc.rs.Interval/2 || p[i+1].Wait > tc.rs.Interval {
						t.Errorf("step %d: hold %s outside [interval/2, interval]", i, p[i+1].Wait)
					}
				}
			}
			if faults != tc.cycles {
				t.Errorf("%d faults, want %d", faults, tc.cycles)
			}
			if want := time.Duration(tc.cycles) * tc.rs.Interval.Std(); total != want {
				t.Errorf("waits add up to %s, want %s", total, want)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	if _, err := Plan(mix(1, "elect-unclean"), brokers); err == nil {
		t.Error("elect-unclean in a random mix accepted")
	}
	if _, err := Plan(mix(1, histories.FKill), nil); err == nil {
		t.Error("no brokers accepted")
	}
}

func TestPRNGPick(t *testing.T) {
	r := newPRNG(9)
	for range 100 {
		got := r.pick(brokers, 2)
		if len(got) != 2 || got[0] == got[1] || !slices.IsSorted(got) {
			t.Fatalf("pick 2 of %v: %v", brokers, got)
		}
	}
	if got := r.pick(brokers, 5); !slices.Equal(got, brokers) {
		t.Errorf("pick 5 of 3: %v", got)
	}
}

// TestFaultNamesInVocabulary: every fault a step may name, and every heal
// kind, is described in the history's vocabulary, so that the checker and
// the report know it.
func TestFaultNamesInVocabulary(t *testing.T) {
	for _, f := range append(faultNames(), histories.FHeal, histories.FSchedule) {
		if _, ok := histories.LookupFault(f); !ok {
			t.Errorf("fault %q is not in the histories' fault vocabulary", f)
		}
	}
	for _, f := range randomFaultNames() {
		fault, _, _ := randomFault(f)
		if k := histories.KindOf(fault); k == histories.Lasting && healFor(fault) == "" {
			t.Errorf("random fault %s lasts but no heal undoes it", f)
		}
	}
}

// shapeOf is a partition's or a netem's shape ("" for other steps).
func shapeOf(st Step) string {
	s, _ := paramOf(st, "shape").(string)
	return s
}
