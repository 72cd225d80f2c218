package network

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		groups [][]int32
		want   grudge
	}{
		{[][]int32{{0}, {1, 2}}, grudge{0: {1, 2}, 1: {0}, 2: {0}}},
		{[][]int32{{0, 1}, {2}, {3}}, grudge{0: {2, 3}, 1: {2, 3}, 2: {0, 1, 3}, 3: {0, 1, 2}}},
		{[][]int32{{0, 1}}, grudge{}},
	} {
		if got := cut(tc.groups...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("cut(%v) = %v, want %v", tc.groups, got, tc.want)
		}
	}
}

func TestPartitionShapes(t *testing.T) {
	nodes := func(ids ...int32) *nemesis.Target { return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: ids} }
	for _, tc := range []struct {
		name   string
		shape  string
		target *nemesis.Target
		want   grudge
		err    string
	}{
		{"isolate", nemesis.ShapeIsolate, nodes(2), grudge{2: {0, 1, 1000}, 0: {2}, 1: {2}, 1000: {2}}, ""},
		{"isolate the leader", nemesis.ShapeIsolate, &nemesis.Target{Role: nemesis.RoleLeader}, grudge{0: {1, 2, 1000}, 1: {0}, 2: {0}, 1000: {0}}, ""},
		{"isolate everyone", nemesis.ShapeIsolate, nodes(0, 1, 2, 1000), nil, "every node"},
		{"racks", nemesis.ShapeRacks, nil, grudge{0: {2}, 1: {2}, 2: {0, 1}}, ""},
		{"rack b against the rest", nemesis.ShapeRacks, &nemesis.Target{Role: nemesis.RoleRack, Rack: "b"}, grudge{0: {2}, 1: {2}, 2: {0, 1}}, ""},
		{"unknown rack", nemesis.ShapeRacks, &nemesis.Target{Rack: "z"}, nil, `rack "z" has no brokers`},
		{"leader-followers", nemesis.ShapeLeaderFollowers, nil, grudge{0: {1, 2}, 1: {0}, 2: {0}}, ""},
		{"leader-followers other partition", nemesis.ShapeLeaderFollowers, &nemesis.Target{Partition: 4}, nil, "no partition 4"},
		{"from-controller", nemesis.ShapeFromController, &nemesis.Target{Role: nemesis.RoleLeader}, grudge{0: {1000}, 1000: {0}}, ""},
		{"from-controller of the controller", nemesis.ShapeFromController, &nemesis.Target{Role: nemesis.RoleController}, nil, "targets are controllers"},
		{"majority-minority", nemesis.ShapeMajorityMinority, nodes(0), grudge{0: {1, 2, 1000}, 1: {0}, 2: {0}, 1000: {0}}, ""},
		{"bridge", nemesis.ShapeBridge, nodes(1), grudge{0: {2}, 2: {0}}, ""},
		{"bridge of two", nemesis.ShapeBridge, nodes(1, 2), nil, "1 broker(s) besides the bridge"},
		{"groups", nemesis.ShapeGroups, nil, grudge{0: {2}, 2: {0}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := newFakeEnv()
			f := &partitionFault{shape: tc.shape, target: tc.target}
			if tc.shape == nemesis.ShapeGroups {
				f.groups = [][]int32{{0}, {2}}
			}
			g, err := f.grudge(context.Background(), env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(g, tc.want) {
				t.Fatalf("grudge %v (%v), want %v", g, err, tc.want)
			}
		})
	}
	env, _, _ := newFakeEnv()
	if _, err := (&partitionFault{shape: nemesis.ShapeGroups, groups: [][]int32{{0}, {7}}}).grudge(context.Background(), env); err == nil ||
		!strings.Contains(err.Error(), "node 7 is not in this run") {
		t.Errorf("groups with a foreign node: %v", err)
	}
	// A cluster without racks cannot be split by rack.
	env, c, _ := newFakeEnv()
	for id, n := range c.Nodes {
		n.Rack = ""
		c.Nodes[id] = n
	}
	if _, err := (&partitionFault{shape: nemesis.ShapeRacks}).grudge(context.Background(), env); err == nil {
		t.Error("racks without racks accepted")
	}
	// A partition without a leader has no leader to cut off.
	env, _, a := newFakeEnv()
	a.Parts[0].Leader = -1
	if _, err := (&partitionFault{shape: nemesis.ShapeLeaderFollowers}).grudge(context.Background(), env); err == nil ||
		!strings.Contains(err.Error(), "offline") {
		t.Errorf("leader-followers of an offline partition: %v", err)
	}
}

func TestKchaosRules(t *testing.T) {
	out := `-P INPUT ACCEPT
-P OUTPUT ACCEPT
-N DOCKER
-A INPUT -s 10.9.0.21/32 -m comment --comment kchaos -j DROP
-A INPUT -s 10.9.0.99/32 -j DROP
-A INPUT -s 10.9.0.98/32 -m comment --comment "not kchaos" -j DROP
-A OUTPUT -d 10.9.0.21/32 -m comment --comment "kchaos" -j DROP
-A OUTPUT -d 10.9.0.22/32 -m comment --comment kchaos2 -j DROP
`
	got, err := kchaosRules(out)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		strings.Fields("-D INPUT -s 10.9.0.21/32 -m comment --comment kchaos -j DROP"),
		strings.Fields("-D OUTPUT -d 10.9.0.21/32 -m comment --comment kchaos -j DROP"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := kchaosRules("-A INPUT -s $(reboot) -m comment --comment kchaos -j DROP"); err == nil {
		t.Error("a rule with shell syntax was accepted")
	}
}

func TestPartitionInjectAndHeal(t *testing.T) {
	ctx := context.Background()
	env, c, _ := newFakeEnv()
	f := &partitionFault{shape: nemesis.ShapeIsolate, target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{2}}}
	nodes, details, err := f.Inject(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(nodes) != "[0 1 2 1000]" || details["shape"] != nemesis.ShapeIsolate {
		t.Errorf("touched %v, details %v", nodes, details)
	}
	// Each end drops the other in both directions.
	want := map[int32]int{0: 2, 1: 2, 2: 6, 1000: 2}
	for id, n := range want {
		if got := c.RuleCount(id); got != n {
			t.Errorf("node %d: %d rules, want %d", id, got, n)
		}
	}
	if !c.CutOff(2, 0) || !c.CutOff(0, 2) || c.CutOff(0, 1) {
		t.Error("wrong pairs cut")
	}
	// The heal removes exactly the kchaos rules (the fake iptables also
	// lists a foreign rule; deleting it would fail).
	if err := f.Heal(ctx, env); err != nil {
		t.Fatal(err)
	}
	for id := range want {
		if got := c.RuleCount(id); got != 0 {
			t.Errorf("node %d: %d rules after heal", id, got)
		}
	}
}

// TestPartitionHealDeadAndPaused: a heal skips nodes it cannot reach and
// cleans them when the nemesis brings them back.
func TestPartitionHealDeadAndPaused(t *testing.T) {
	ctx := context.Background()
	env, c, _ := newFakeEnv()
	f := &partitionFault{shape: nemesis.ShapeIsolate, target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{2}}}
	if _, _, err := f.Inject(ctx, env); err != nil {
		t.Fatal(err)
	}
	_ = c.Pause(ctx, 1)
	_ = c.Kill(ctx, 0)
	removed, pending, err := healPartitions(ctx, env)
	if err != nil || removed != 8 || fmt.Sprint(pending) != "[0 1]" {
		t.Fatalf("heal: removed %d, pending %v, %v; want 8 and [0 1]", removed, pending, err)
	}
	if c.RuleCount(1) != 2 || fmt.Sprint(pendingNodes(env)) != "[0 1]" {
		t.Fatalf("paused node 1 has %d rules, pending %v", c.RuleCount(1), pendingNodes(env))
	}
	if err := env.Inject(ctx, processStep(t, nemesis.Step{Fault: histories.FResume, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1}}})); err != nil {
		t.Fatal(err)
	}
	if c.RuleCount(1) != 0 || fmt.Sprint(pendingNodes(env)) != "[0]" {
		t.Errorf("after resume: node 1 has %d rules, pending %v", c.RuleCount(1), pendingNodes(env))
	}
	if err := env.Inject(ctx, processStep(t, nemesis.Step{Fault: histories.FStart})); err != nil {
		t.Fatal(err)
	}
	if len(pendingNodes(env)) != 0 {
		t.Errorf("after start: pending %v", pendingNodes(env))
	}
}

// TestPartitionSkipsDownNodes: a partition injected while a node is down
// installs the rules on its peers and names the node it skipped.
func TestPartitionSkipsDownNodes(t *testing.T) {
	ctx := context.Background()
	env, c, _ := newFakeEnv()
	_ = c.Kill(ctx, 0)
	nodes, details, err := (&partitionFault{shape: nemesis.ShapeRacks}).Inject(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(nodes) != "[1 2]" || fmt.Sprint(details["skipped"]) != "[0]" {
		t.Errorf("touched %v, details %v", nodes, details)
	}
	if !c.CutOff(2, 0) || c.RuleCount(0) != 0 {
		t.Error("broker 2 should drop broker 0; broker 0 has no rules")
	}
}
