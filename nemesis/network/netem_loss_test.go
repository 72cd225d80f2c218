package network

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// rulesOn is node id's fake rules (as iptables -S prints them) that
// contain want.
func rulesOn(c *fakeCluster, id int32, want string) []string {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	var out []string
	for _, r := range c.Rules[id] {
		if strings.Contains(r, want) {
			out = append(out, r)
		}
	}
	return out
}

// TestNetemLossWithoutNetem: on a kernel without sch_netem, a 10% loss on
// the leader's links to its followers is iptables statistic rules tagged
// kchaos-netem at each end's egress, no qdisc at all; the proof reads each
// rule's probability back and sees the probe's datagrams dropped by the
// rule's counter; heal partition leaves the loss rules (and removes the
// partition's), heal netem removes exactly the loss rules.
func TestNetemLossWithoutNetem(t *testing.T) {
	s := nemesis.Schedule{Steps: []nemesis.Step{
		netemStep(nemesis.ShapeLeaderFollowers, &nemesis.Target{Partition: 0}, nemesis.NetemSpec{Loss: 10}),
		{Fault: histories.FPartition, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1000}}},
		{Heal: histories.FPartition},
		{Heal: histories.FNetem},
	}}
	var runErr error
	var lossAfterPartitionHeal, kchaosAfterNetemHeal map[int32]int
	evs := recorded(t, func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin) {
		c.Net.NoNetem = true
		count := func(want string) map[int32]int {
			m := map[int32]int{}
			for _, id := range env.AllNodes() {
				if n := len(rulesOn(c, id, want)); n > 0 {
					m[id] = n
				}
			}
			return m
		}
		r := &nemesis.Runner{Env: env, HealTimeout: 2 * time.Second, OnStep: func(i, n int, name string) {
			switch i {
			case 1:
				want := map[int32][]string{
					0: {"-A OUTPUT -d 10.9.0.21/32 -m statistic --mode random --probability 0.1 -m comment --comment kchaos-netem -j DROP",
						"-A OUTPUT -d 10.9.0.22/32 -m statistic --mode random --probability 0.1 -m comment --comment kchaos-netem -j DROP"},
					1: {"-A OUTPUT -d 10.9.0.20/32 -m statistic --mode random --probability 0.1 -m comment --comment kchaos-netem -j DROP"},
					2: {"-A OUTPUT -d 10.9.0.20/32 -m statistic --mode random --probability 0.1 -m comment --comment kchaos-netem -j DROP"},
				}
				for id, w := range want {
					if got := rulesOn(c, id, "kchaos-netem"); !slices.Equal(got, w) {
						t.Errorf("node %d loss rules %q, want %q", id, got, w)
					}
				}
				if got := tcNodes(c); len(got) != 0 {
					t.Errorf("a loss alone added qdiscs on %v", got)
				}
			case 3:
				lossAfterPartitionHeal = count("kchaos-netem")
				if n := count("comment kchaos -j"); len(n) != 0 {
					t.Errorf("heal partition left partition rules %v", n)
				}
			}
		}}
		runErr = r.Run(context.Background(), s)
		kchaosAfterNetemHeal = count("kchaos")
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if fmt.Sprint(lossAfterPartitionHeal) != "map[0:2 1:1 2:1]" {
		t.Errorf("loss rules after heal partition: %v, want them all (map[0:2 1:1 2:1])", lossAfterPartitionHeal)
	}
	if len(kchaosAfterNetemHeal) != 0 {
		t.Errorf("rules left after heal netem: %v", kchaosAfterNetemHeal)
	}
	ev, p := proofOf(t, evs, histories.FNetem)
	if ev.Type != histories.OK {
		t.Fatalf("netem loss %s %q", ev.Type, ev.Error)
	}
	if fmt.Sprint(p["loss_rules"]) != "map[0:[OUTPUT -d 10.9.0.21 probability 0.1 OUTPUT -d 10.9.0.22 probability 0.1] 1:[OUTPUT -d 10.9.0.20 probability 0.1] 2:[OUTPUT -d 10.9.0.20 probability 0.1]]" ||
		fmt.Sprint(p["loss_sent"]) != "132" || fmt.Sprint(p["loss_dropped"]) != "13" ||
		p["loss_probe"] != "0->10.9.0.21: 132 udp datagrams (rule OUTPUT -d 10.9.0.21 on node 0)" || p["installed"] != nil {
		t.Errorf("proof %v", p)
	}
	var healed bool
	for _, e := range evs {
		var v histories.NemesisValue
		_ = e.Decode(&v)
		if e.F == histories.FHeal && e.Type == histories.OK && v.Fault == histories.FNetem {
			healed = fmt.Sprint(v.Details["loss_rules_removed"]) == "4" && fmt.Sprint(v.Details["qdiscs_removed"]) == "0"
		}
		// Controller 1000 cut from the three brokers: 6 rules there, 2 on each broker.
		if e.F == histories.FHeal && e.Type == histories.OK && v.Fault == histories.FPartition && fmt.Sprint(v.Details["rules_removed"]) != "12" {
			t.Errorf("heal partition removed %v rules, want the partition's 12", v.Details["rules_removed"])
		}
	}
	if !healed {
		t.Errorf("no heal netem with loss_rules_removed 4: %s", summary(evs))
	}
}

// TestNetemLossClientsAndRate: shape clients drops both directions at the
// broker (OUTPUT -d and INPUT -s the client side); a loss with a rate is
// both the htb tree and the rules, each proved.
func TestNetemLossClientsAndRate(t *testing.T) {
	env, c, _ := newFakeEnv()
	ctx := context.Background()
	f, _ := nemesis.NewFault(netemStep(ShapeClients, &nemesis.Target{Role: nemesis.RoleLeader}, nemesis.NetemSpec{Loss: 25, Rate: "1mbit"}))
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	got := rulesOn(c, 0, "kchaos-netem")
	want := []string{
		"-A OUTPUT -d 10.9.0.1/32 -m statistic --mode random --probability 0.25 -m comment --comment kchaos-netem -j DROP",
		"-A INPUT -s 10.9.0.1/32 -m statistic --mode random --probability 0.25 -m comment --comment kchaos-netem -j DROP",
	}
	if !slices.Equal(got, want) || fmt.Sprint(tcNodes(c)) != "[0]" {
		t.Errorf("node 0 rules %q, qdiscs on %v", got, tcNodes(c))
	}
	nf := f.(*netemFault)
	p, err := nf.Prove(ctx, env)
	if err != nil || p["installed"] == nil || fmt.Sprint(p["loss_dropped"]) == "0" || fmt.Sprint(p["loss_sent"]) != "100" {
		t.Errorf("proof %v: %v", p, err)
	}
	// A second loss on the same broker would multiply the first unseen.
	again, _ := nemesis.NewFault(netemStep(ShapeClients, &nemesis.Target{Role: nemesis.RoleLeader}, nemesis.NetemSpec{Loss: 5}))
	if err := env.Inject(ctx, again); err == nil || !strings.Contains(err.Error(), "already has 2 kchaos netem loss rule(s)") {
		t.Errorf("second loss on node 0: %v", err)
	}
	if err := nf.Heal(ctx, env); err != nil {
		t.Fatal(err)
	}
	if got := rulesOn(c, 0, "kchaos"); len(got) != 0 || len(tcNodes(c)) != 0 {
		t.Errorf("after the fault's heal: rules %q, qdiscs on %v", got, tcNodes(c))
	}
}

// TestNetemLossFailures: a rule that drops nothing fails the proof (info,
// no effect); a loss with a delay on a kernel without netem fails at the
// delay, naming it, with neither qdiscs nor loss rules left; a paused node
// keeps its rules until it is resumed.
func TestNetemLossFailures(t *testing.T) {
	ctx := context.Background()
	env, c, _ := newFakeEnv()
	c.Net.LossInert = true
	f, _ := nemesis.NewFault(netemStep(nemesis.ShapeIsolate, &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{2}}, nemesis.NetemSpec{Loss: 50}))
	err := env.Inject(ctx, f)
	if err == nil || !strings.Contains(err.Error(), "no effect: node 0: the loss rule OUTPUT -d 10.9.0.22 dropped none of 100 datagrams") {
		t.Errorf("inert loss rule: %v", err)
	}
	if err := env.Heal(ctx, histories.HealAll, time.Second); err != nil {
		t.Fatal(err)
	}

	env, c, _ = newFakeEnv()
	c.Net.NoNetem = true
	f, _ = nemesis.NewFault(netemStep(nemesis.ShapeRacks, nil, nemesis.NetemSpec{Loss: 10, Delay: nemesis.Duration(50 * time.Millisecond)}))
	err = env.Inject(ctx, f)
	if err == nil || !strings.Contains(err.Error(), "the kernel has no netem qdisc") || !strings.Contains(err.Error(), "(a rate or a loss can)") {
		t.Errorf("loss with delay without netem: %v", err)
	}
	for _, id := range env.AllNodes() {
		if r := rulesOn(c, id, "kchaos"); len(r) != 0 {
			t.Errorf("node %d: rules %q left after the failed injection", id, r)
		}
	}
	if got := tcNodes(c); len(got) != 0 {
		t.Errorf("qdiscs left on %v", got)
	}

	f, _ = nemesis.NewFault(netemStep(nemesis.ShapeRacks, nil, nemesis.NetemSpec{Loss: 10}))
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := env.Heal(ctx, histories.FNetem, time.Second); err != nil || len(rulesOn(c, 2, "kchaos-netem")) == 0 || !slices.Contains(pendingNodes(env), 2) {
		t.Fatalf("heal with node 2 paused: %v, rules %q, pending %v", err, rulesOn(c, 2, "kchaos-netem"), pendingNodes(env))
	}
	if _, _, err := processStep(t, nemesis.Step{Fault: histories.FResume}).Inject(ctx, env); err != nil {
		t.Fatal(err)
	}
	if r := rulesOn(c, 2, "kchaos"); len(r) != 0 || len(pendingNodes(env)) != 0 {
		t.Errorf("after resume: rules %q, pending %v", r, pendingNodes(env))
	}
}

func TestLossProbeSize(t *testing.T) {
	for _, tc := range []struct {
		loss     nemesis.Percent
		n        int
		required bool
	}{
		{100, 100, true}, {50, 100, true}, {10, 132, true}, {1, 1375, true}, {0.5, 2757, true}, {0.4, 3000, false}, {0.01, 3000, false},
	} {
		n, req := lossProbeSize(tc.loss)
		if n != tc.n || req != tc.required {
			t.Errorf("lossProbeSize(%v) = %d, %v; want %d, %v", tc.loss, n, req, tc.n, tc.required)
		}
	}
}

// Real `iptables -w 5 -S -v` of a kchaos/kafka container (iptables 1.8.9,
// nf_tables), with a partition rule beside the loss rules.
const realIptablesV = `-P INPUT ACCEPT -c 0 0
-P FORWARD ACCEPT -c 0 0
-P OUTPUT ACCEPT -c 0 0
-A INPUT -s 127.0.0.3/32 -m statistic --mode random --probability 0.25000000000 -m comment --comment kchaos-netem -c 0 0 -j DROP
-A INPUT -s 10.231.7.22/32 -m comment --comment kchaos -c 4 240 -j DROP
-A OUTPUT -d 127.0.0.2/32 -m statistic --mode random --probability 0.10000000009 -m comment --comment kchaos-netem -c 21 630 -j DROP
`

func TestParseLossRules(t *testing.T) {
	got := parseLossRules(realIptablesV)
	if len(got) != 2 || got[0].rule.String() != "INPUT -s 127.0.0.3" || got[0].probability != 0.25 || got[0].pkts != 0 ||
		got[1].rule.String() != "OUTPUT -d 127.0.0.2" || got[1].probability != 0.10000000009 || got[1].pkts != 21 {
		t.Errorf("parseLossRules: %+v", got)
	}
	// Each heal finds its own rules only.
	loss, _ := taggedRules(realIptablesV, lossComment)
	part, _ := kchaosRules(realIptablesV)
	if len(loss) != 2 || len(part) != 1 || part[0][1] != "INPUT" || !slices.Contains(part[0], "10.231.7.22/32") {
		t.Errorf("loss rules %q, partition rules %q", loss, part)
	}
	if p := probability(0.5); p != "0.005" {
		t.Errorf("probability(0.5%%) = %s", p)
	}
}
