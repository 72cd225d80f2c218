package process

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

func nodes(ids ...int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: ids}
}

// TestProcessFaults: each process fault acts on the nodes of its target
// that are not yet in the state it wants and names the others as skipped
// (a schedule's intent is then met); kill thaws a frozen node first, a
// restart stops and starts its node and waits until it is live again,
// start and resume without a target mean every node down, or paused,
// controllers first (Env.AllNodes);
// kill and pause prove that they hold from the kchaos host.
func TestProcessFaults(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(c *fakeCluster)
		step    nemesis.Step
		touched []int32
		skipped []int32
		calls   string
		proof   string // the proof's lines, "" for none
		errText string // Inject's or the proof's error, "" for none
	}{
		{"kill the leader", nil, nemesis.Step{Fault: histories.FKill, Target: &nemesis.Target{Role: nemesis.RoleLeader}},
			[]int32{0}, nil, "[kill 0]", "stopped [0: not running (exit 137), 10.9.0.20:9092 unreachable]", ""},
		{"kill a dead node", func(c *fakeCluster) { c.States[1] = cluster.NodeState{} },
			nemesis.Step{Fault: histories.FKill, Target: nodes(1)}, nil, []int32{1}, "[]", "", ""},
		{"kill thaws a frozen node first", func(c *fakeCluster) { c.States[2] = cluster.NodeState{Running: true, Paused: true} },
			nemesis.Step{Fault: histories.FKill, Target: nodes(2)}, []int32{2}, nil, "[unpause 2 kill 2]",
			"stopped [2: not running (exit 137), 10.9.0.22:9092 unreachable]", ""},
		{"kill without a target", nil, nemesis.Step{Fault: histories.FKill}, nil, nil, "[]", "", "kill needs a target"},
		{"pause a follower", nil, nemesis.Step{Fault: histories.FPause, Target: nodes(1)}, []int32{1}, nil, "[pause 1]",
			"frozen [1: paused, 10.9.0.21:9092 accepts TCP but no answer to ApiVersions in 1s]", ""},
		{"a paused node that answers is no pause", func(c *fakeCluster) { c.Net.AnswerPaused = true },
			nemesis.Step{Fault: histories.FPause, Target: nodes(1)}, []int32{1}, nil, "[pause 1]",
			"frozen [1: answered ApiVersions]", "node 1 answered a Kafka request while paused"},
		{"pause a paused node", func(c *fakeCluster) { c.States[1] = cluster.NodeState{Running: true, Paused: true} },
			nemesis.Step{Fault: histories.FPause, Target: nodes(1)}, nil, []int32{1}, "[]", "", ""},
		{"resume every paused node", func(c *fakeCluster) {
			c.States[0] = cluster.NodeState{Running: true, Paused: true}
			c.States[1000] = cluster.NodeState{Running: true, Paused: true}
		}, nemesis.Step{Fault: histories.FResume}, []int32{1000, 0}, []int32{1, 2}, "[unpause 1000 unpause 0]", "", ""},
		{"start every node down", func(c *fakeCluster) { c.States[2] = cluster.NodeState{ExitCode: 137} },
			nemesis.Step{Fault: histories.FStart}, []int32{2}, []int32{1000, 0, 1}, "[start 2]", "", ""},
		{"restart a frozen broker", func(c *fakeCluster) { c.States[1] = cluster.NodeState{Running: true, Paused: true} },
			nemesis.Step{Fault: histories.FRestart, Target: nodes(1)}, []int32{1}, nil, "[unpause 1 stop 1 start 1]", "", ""},
		{"restart the controller", nil, nemesis.Step{Fault: histories.FRestart, Target: nodes(1000)},
			[]int32{1000}, nil, "[stop 1000 start 1000]", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, c := newFakeEnv()
			if tc.setup != nil {
				tc.setup(c)
			}
			f, err := nemesis.NewFault(tc.step)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			touched, d, err := f.Inject(ctx, e)
			var proof map[string]any
			if err == nil {
				proof, err = f.(nemesis.Prover).Prove(ctx, e)
			}
			if tc.errText == "" && err != nil || tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)) {
				t.Errorf("error %v, want %q", err, tc.errText)
			}
			skipped, _ := d["skipped"].([]int32)
			if !slices.Equal(touched, tc.touched) || !slices.Equal(skipped, tc.skipped) {
				t.Errorf("touched %v skipped %v, want %v and %v", touched, skipped, tc.touched, tc.skipped)
			}
			if got := fmt.Sprint(c.Calls); got != tc.calls {
				t.Errorf("calls %s, want %s", got, tc.calls)
			}
			var lines string
			for k, v := range proof {
				lines = fmt.Sprintf("%s %v", k, v)
			}
			if lines != tc.proof {
				t.Errorf("proof %q, want %q", lines, tc.proof)
			}
		})
	}
}

// TestProcessHeals: a kill's and a pause's own Heal undo them on the
// nodes they touched; the kill and pause heal kinds (heal kill, heal
// pause, and a heal all's) start, or resume, every node that needs it,
// whoever stopped or froze it (a power loss too), and record them.
func TestProcessHeals(t *testing.T) {
	down := func(c *fakeCluster) {
		c.States[0] = cluster.NodeState{ExitCode: 137}
		c.States[2] = cluster.NodeState{}
	}
	frozen := func(c *fakeCluster) { c.States[1] = cluster.NodeState{Running: true, Paused: true} }
	for _, tc := range []struct {
		name  string
		setup func(c *fakeCluster)
		heal  *nemesis.HealKind
		key   string
		want  []int32
		calls string
	}{
		{"heal kill starts every node down", down, killHeal, "started", []int32{0, 2}, "[start 0 start 2]"},
		{"heal pause resumes every frozen node", frozen, pauseHeal, "resumed", []int32{1}, "[unpause 1]"},
		{"heal kill with every node up", nil, killHeal, "started", nil, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, c := newFakeEnv()
			if tc.setup != nil {
				tc.setup(c)
			}
			d := map[string]any{}
			ids, err := tc.heal.Heal(context.Background(), e, d)
			got, _ := d[tc.key].([]int32)
			if err != nil || !slices.Equal(ids, tc.want) || !slices.Equal(got, tc.want) {
				t.Errorf("healed %v (%s %v), %v; want %v", ids, tc.key, got, err, tc.want)
			}
			if calls := fmt.Sprint(c.Calls); calls != tc.calls {
				t.Errorf("calls %s, want %s", calls, tc.calls)
			}
		})
	}
	for _, tc := range []struct {
		op, calls string
	}{{histories.FKill, "[kill 1 start 1]"}, {histories.FPause, "[pause 1 unpause 1]"}} {
		e, c := newFakeEnv()
		f, _ := nemesis.NewFault(nemesis.Step{Fault: tc.op, Target: nodes(1)})
		ctx := context.Background()
		if _, _, err := f.Inject(ctx, e); err != nil {
			t.Fatal(err)
		}
		if err := f.Heal(ctx, e); err != nil || fmt.Sprint(c.Calls) != tc.calls {
			t.Errorf("%s then its heal: calls %v, %v; want %s", tc.op, c.Calls, err, tc.calls)
		}
	}
}
