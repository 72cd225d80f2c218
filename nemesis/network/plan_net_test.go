package network

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// TestPlanNetFaults: netem (every link shape and clients) and cut-clients
// in a random mix: each drawn netem carries the default spec (loss 10%)
// or the schedule's, its target as a partition of that shape would have
// it, and is healed by heal netem; cut-clients by heal partition; the
// expanded plan is a valid scripted schedule.
func TestPlanNetFaults(t *testing.T) {
	names := []string{"netem", "netem-leader-followers", "netem-racks", "netem-clients", "netem-majority-minority", histories.FCutClients}
	for _, tc := range []struct {
		name string
		spec *nemesis.NetemSpec
		want string
	}{
		{"default spec", nil, "loss 10%"},
		{"own spec", &nemesis.NetemSpec{Rate: "1mbit"}, "rate 1mbit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := nemesis.RandomSchedule{Seed: 5, Interval: nemesis.Duration(time.Second), Duration: nemesis.Duration(40 * time.Second), Faults: names, Netem: tc.spec}
			p, err := nemesis.Plan(rs, brokers)
			if err != nil {
				t.Fatal(err)
			}
			if err := (&nemesis.Schedule{Steps: p}).Validate(); err != nil {
				t.Fatalf("the plan is no valid schedule: %v", err)
			}
			seen := map[string]bool{}
			for i, st := range p {
				if st.Fault == "" {
					continue
				}
				var heal string
				for _, next := range p[i+1:] {
					if next.Heal != "" {
						heal = next.Heal
						break
					}
				}
				key := st.Fault
				np, _ := st.Params.(*NetemParams)
				switch st.Fault {
				case histories.FNetem:
					key += "-" + np.Shape
					spec := fmt.Sprintf("loss %v rate %s", np.Netem.Loss, np.Netem.Rate)
					if tc.spec == nil && spec != "loss 10% rate " || tc.spec != nil && spec != "loss 0% rate 1mbit" {
						t.Errorf("step %d: netem spec %s, want %s", i, spec, tc.want)
					}
					if heal != histories.FNetem {
						t.Errorf("step %d: netem healed by %q", i, heal)
					}
					switch np.Shape {
					case nemesis.ShapeLeaderFollowers:
						if st.Target == nil || st.Target.Role != nemesis.RoleLeader {
							t.Errorf("step %d: leader-followers target %+v", i, st.Target)
						}
					case nemesis.ShapeRacks:
						if st.Target != nil {
							t.Errorf("step %d: racks target %+v", i, st.Target)
						}
					default:
						if st.Target == nil || st.Target.Role != nemesis.RoleNodes || len(st.Target.Nodes) == 0 {
							t.Errorf("step %d: %s target %+v", i, np.Shape, st.Target)
						}
					}
				case histories.FCutClients:
					if heal != histories.FPartition || st.Target == nil || st.Target.Role != nemesis.RoleNodes || len(st.Target.Nodes) != 1 {
						t.Errorf("step %d: cut-clients target %+v healed by %q", i, st.Target, heal)
					}
				default:
					t.Errorf("step %d: fault %s not in the mix", i, st.Fault)
				}
				seen[key] = true
			}
			if len(seen) != len(names) {
				t.Errorf("40 draws of %d names gave %v", len(names), seen)
			}
		})
	}
}

// TestPlanNetPeriods: in periods, a partition and a cut-clients drawn
// together are healed by one heal partition; netem by its own.
func TestPlanNetPeriods(t *testing.T) {
	rs := nemesis.RandomSchedule{Seed: 1, Faults: []string{histories.FPartition, histories.FCutClients, "netem-clients"}, Subset: 3,
		Active: nemesis.Duration(time.Second), Quiet: nemesis.Duration(time.Second), Duration: nemesis.Duration(2 * time.Second)}
	p, err := nemesis.Plan(rs, brokers)
	if err != nil {
		t.Fatal(err)
	}
	var heals []string
	for _, st := range p {
		if st.Heal != "" {
			heals = append(heals, st.Heal)
		}
	}
	if len(p) != 7 || len(heals) != 2 || !strings.Contains(strings.Join(heals, " "), histories.FPartition) || !strings.Contains(strings.Join(heals, " "), histories.FNetem) {
		t.Errorf("plan %+v: heals %v, want one partition and one netem", p, heals)
	}
}

// TestRandomNetRuns: a random schedule of netem and cut-clients plays out
// on the fake cluster, every fault proved, and leaves no rule or qdisc.
func TestRandomNetRuns(t *testing.T) {
	env, c, _ := newFakeEnv()
	s := nemesis.Schedule{Random: &nemesis.RandomSchedule{Seed: 9, Interval: nemesis.Duration(50 * time.Millisecond), Duration: nemesis.Duration(400 * time.Millisecond),
		Faults: []string{"netem-leader-followers", "netem-clients", histories.FCutClients, "netem"}}}
	if err := (&nemesis.Runner{Env: env, HealTimeout: time.Second}).Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	for _, id := range env.AllNodes() {
		if n := c.RuleCount(id); n != 0 {
			t.Errorf("node %d: %d rules left", id, n)
		}
	}
	if got := tcNodes(c); len(got) != 0 {
		t.Errorf("qdiscs left on %v", got)
	}
}

func TestRandomNetValidation(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"netem mix", "random: {seed: 1, interval: 10s, duration: 30s, faults: [netem, netem-clients, netem-leader-followers, cut-clients]}", ""},
		{"own spec", "random: {seed: 1, interval: 10s, duration: 30s, faults: [netem-racks], netem: {rate: 1mbit}}", ""},
		{"bad spec", "random: {seed: 1, interval: 10s, duration: 30s, faults: [netem], netem: {rate: fast}}", `nemesis.random.netem.rate: rate "fast"`},
		{"empty spec", "random: {seed: 1, interval: 10s, duration: 30s, faults: [netem], netem: {}}", "nemesis.random.netem: empty"},
		{"spec without netem", "random: {seed: 1, interval: 10s, duration: 30s, faults: [kill], netem: {loss: 5%}}", "nemesis.random.netem: the mix draws no netem"},
		{"netem groups", "random: {seed: 1, interval: 10s, duration: 30s, faults: [netem-groups]}", `nemesis.random.faults[0]: unknown fault "netem-groups"`},
		{"partition clients", "random: {seed: 1, interval: 10s, duration: 30s, faults: [partition-clients]}", `nemesis.random.faults[0]: unknown fault "partition-clients"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nemesis.ParseSchedule([]byte(tc.yaml))
			wantErr(t, err, tc.want)
		})
	}
}
