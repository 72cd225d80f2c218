package nemesis

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// TestRandomMix: the default mix is read off the registry and the
// backend's capabilities, never a hand list: every name in it is one a
// random schedule accepts and the backend can apply, and every drawable
// name left out is left out for a reason (a capability missing, or racks
// without two racks).
func TestRandomMix(t *testing.T) {
	for _, c := range []struct {
		name  string
		caps  cluster.Caps
		racks int
		ctrls int
	}{
		{"every capability, racks", cluster.AllCaps(), 2, 3},
		{"every capability, no racks", cluster.AllCaps(), 0, 3},
		{"every capability, one controller", cluster.AllCaps(), 2, 1},
		{"processes only", cluster.NewCaps(cluster.CapPause, cluster.CapKill), 0, 3},
		{"nothing", cluster.NewCaps(), 0, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			mix := RandomMix(c.caps, c.racks, c.ctrls)
			for _, name := range randomFaultNames() {
				fault, shape, _ := randomFault(name)
				st := planStep(newPRNG(1), RandomSchedule{}, name, []int32{0})
				canDo := c.caps.Has(st.Needs()) && (shape != ShapeRacks || c.racks >= 2) &&
					(!slices.Contains(quorumShapes, shape) || c.ctrls >= 2)
				if got := slices.Contains(mix, name); got != canDo {
					t.Errorf("%s (fault %s, needs %v): in mix %v, want %v", name, fault, st.Needs(), got, canDo)
				}
			}
			if len(mix) == 0 {
				return
			}
			s := Schedule{Random: &RandomSchedule{Seed: 1, Faults: mix, Subset: 2, Active: Duration(1e10), Duration: Duration(1e10)}}
			if err := s.Validate(); err != nil {
				t.Errorf("the mix does not validate: %v", err)
			}
			if err := s.CheckBackend("test", c.caps); err != nil {
				t.Errorf("the backend refuses its own mix: %v", err)
			}
		})
	}
	if all := RandomMix(cluster.AllCaps(), 2, 3); len(all) != len(randomFaultNames()) {
		t.Errorf("with every capability and racks the mix has %d of %d drawable faults", len(all), len(randomFaultNames()))
	}
}

// TestStepFromOp: a recorded fault becomes the step that replays it.
func TestStepFromOp(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault string
		spec  map[string]any
		nodes []int32
		check func(Step) bool
		err   string
	}{
		{"role pinned to the nodes struck", "kill", map[string]any{"target": map[string]any{"role": "leader"}}, []int32{2},
			func(st Step) bool { return st.Target.Role == RoleNodes && slices.Equal(st.Target.Nodes, []int32{2}) }, ""},
		{"link fault keeps its role", "partition", map[string]any{"shape": "leader-followers", "target": map[string]any{"role": "leader"}}, []int32{0, 1, 2},
			func(st Step) bool {
				return st.Target.Role == RoleLeader && paramOf(st, "shape") == ShapeLeaderFollowers
			}, ""},
		{"netem keeps its spec", "netem", map[string]any{"shape": "isolate", "netem": map[string]any{"loss": "10%"}, "target": map[string]any{"role": "nodes", "nodes": []any{1}}}, []int32{0, 1, 2},
			func(st Step) bool {
				netem, _ := paramOf(st, "netem").(map[string]any)
				return netem["loss"] == "10%" && slices.Equal(st.Target.Nodes, []int32{1})
			}, ""},
		{"config", "set-config", map[string]any{"config": map[string]any{"unclean.leader.election.enable": "true"}}, nil,
			func(st Step) bool { return st.Target == nil }, ""},
		{"election's partition is its target's", "elect-unclean", map[string]any{"partition": 0}, []int32{1},
			func(st Step) bool { return st.Target != nil && st.Target.Role == "" }, ""},
		{"unknown parameter", "kill", map[string]any{"target": map[string]any{"role": "leader"}, "speed": 1}, nil, nil, "speed"},
		{"unknown fault", "explode", nil, nil, nil, "explode"},
		{"invalid as recorded", "partition", map[string]any{"shape": "[0] | [1 2]"}, nil, nil, "shape"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := StepFromOp(c.fault, c.spec, c.nodes)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(st) {
				t.Errorf("step %+v (target %+v)", st, st.Target)
			}
		})
	}
}

// TestStepFromOpReplaysEveryDrawnFault: for every fault a random
// schedule can draw, the spec its fault records (Specer, through JSON as
// the history holds it) gives back a step whose fault records that same
// spec: the replay of an explored run is the run's own schedule.
func TestStepFromOpReplaysEveryDrawnFault(t *testing.T) {
	for _, name := range randomFaultNames() {
		t.Run(name, func(t *testing.T) {
			planned := planStep(newPRNG(3), RandomSchedule{}, name, []int32{0, 1, 2})
			f, err := NewFault(planned)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(specOf(f))
			if err != nil {
				t.Fatal(err)
			}
			var spec map[string]any
			if err := json.Unmarshal(b, &spec); err != nil {
				t.Fatal(err)
			}
			var nodes []int32
			if planned.Target != nil {
				nodes = planned.Target.Nodes
			}
			got, err := StepFromOp(planned.Fault, spec, nodes)
			if err != nil {
				t.Fatalf("spec %s: %v", b, err)
			}
			// The replayed step makes the fault that records the same spec
			// (a default may now be written out: lose-unflushed's model).
			g, err := NewFault(got)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(specOf(g))
			if string(again) != string(b) {
				have, _ := got.MarshalJSON()
				t.Errorf("replayed %s records %s\nplanned spec %s", have, again, b)
			}
		})
	}
}

// TestStepFromOpEveryKind: every registered kind's valid step (the
// registry's own cases), recorded and replayed, makes a fault recording
// the same spec, or is refused with an error naming the fault; never a
// different fault silently.
func TestStepFromOpEveryKind(t *testing.T) {
	for name, c := range registryCases {
		t.Run(name, func(t *testing.T) {
			var st Step
			if err := yaml.Unmarshal([]byte(c.valid), &st); err != nil {
				t.Fatal(err)
			}
			f, err := NewFault(st)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(specOf(f))
			var spec map[string]any
			_ = json.Unmarshal(b, &spec)
			got, err := StepFromOp(name, spec, []int32{1})
			if err != nil {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("refusal %v does not name %s", err, name)
				}
				t.Logf("%s: not replayable from its record: %v", name, err)
				return
			}
			g, err := NewFault(got)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(specOf(g))
			pinned := got.Target != nil && got.Target.Role == RoleNodes && (st.Target == nil || st.Target.Role != RoleNodes)
			if string(again) != string(b) && !pinned {
				t.Errorf("replayed step records %s, the original %s", again, b)
			}
		})
	}
}

// TestStepFromOpOnARecordedRandomRun: a periods-mode random schedule run
// on the fake cluster, recorded; each fault op of its history, replayed
// from its record, is the planned step (the same spec, its target the
// nodes the op names), in the plan's order.
func TestStepFromOpOnARecordedRandomRun(t *testing.T) {
	rs := RandomSchedule{Seed: 11, Subset: 2, Active: Duration(50 * time.Millisecond), Quiet: Duration(20 * time.Millisecond),
		Duration: Duration(280 * time.Millisecond), Faults: []string{histories.FPause, histories.FKill, histories.FRestart, "partition-isolate"}}
	p, err := PlanRandom(rs, []int32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		if err := (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), Schedule{Random: &rs}); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	var planned []Step
	for _, st := range p.Steps {
		if st.Fault != "" {
			planned = append(planned, st)
		}
	}
	n := 0
	for i := 0; i+1 < len(evs); i += 2 {
		inv, done := evs[i], evs[i+1]
		if inv.F == histories.FSchedule || inv.F == histories.FHeal {
			continue
		}
		var spec, got histories.NemesisValue
		if err := inv.Decode(&spec); err != nil {
			t.Fatal(err)
		}
		if err := done.Decode(&got); err != nil {
			t.Fatal(err)
		}
		st, err := StepFromOp(inv.F, spec.Details, got.Nodes)
		if err != nil {
			t.Fatalf("op %d (%s): %v", inv.Index, inv.F, err)
		}
		if n >= len(planned) {
			t.Fatalf("more fault ops than the plan's %d", len(planned))
		}
		want, _ := planned[n].MarshalJSON()
		have, _ := st.MarshalJSON()
		if string(have) != string(want) {
			t.Errorf("fault %d: replayed %s, planned %s", n, have, want)
		}
		n++
	}
	if n != len(planned) || n == 0 {
		t.Errorf("replayed %d fault ops of %d planned", n, len(planned))
	}
}
