package network

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// TestCutClients: the leader's client port is cut from the client side
// only (two rules, port and address), proven from the host with an uncut
// broker as control; state reads leave the cut broker out; the fault's own
// heal removes exactly its rules and heal partition removes them all.
func TestCutClients(t *testing.T) {
	env, c, _ := newFakeEnv()
	var buf strings.Builder
	env.Recorder = histories.NewRecorder(&buf)
	ctx := context.Background()
	f, err := nemesis.NewFault(nemesis.Step{Fault: histories.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	c.Mu.Lock()
	rules := slices.Clone(c.Rules[0])
	c.Mu.Unlock()
	want := []string{
		"-A INPUT -s 10.9.0.1/32 -p tcp --dport 9092 -m comment --comment kchaos -j DROP",
		"-A OUTPUT -d 10.9.0.1/32 -p tcp --sport 9092 -m comment --comment kchaos -j DROP",
	}
	if !slices.Equal(rules, want) || c.RuleCount(1) != 0 || c.RuleCount(2) != 0 {
		t.Errorf("rules on 0: %q (1: %d, 2: %d)", rules, c.RuleCount(1), c.RuleCount(2))
	}
	if r := readers(ctx, env); slices.Contains(r, 0) || len(r) != 2 {
		t.Errorf("readers %v: the cut broker must be left out", r)
	}
	if err := env.Recorder.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	ev, p := proofOf(t, evs, histories.FCutClients)
	var v histories.NemesisValue
	_ = ev.Decode(&v)
	if ev.Type != histories.OK || fmt.Sprint(p["cut"]) != "[host->0 dropped]" || p["control"] != "host->1 open" ||
		v.Details["client_addr"] != "10.9.0.1" || fmt.Sprint(v.Nodes) != "[0]" {
		t.Errorf("op %s nodes %v details %v", ev.Type, v.Nodes, v.Details)
	}

	// A partition rule beside it stays when the cut alone is healed.
	part, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FPartition, Params: &PartitionParams{Shape: nemesis.ShapeGroups, Groups: [][]int32{{0}, {2}}}})
	if err := env.Inject(ctx, part); err != nil {
		t.Fatal(err)
	}
	if err := f.Heal(ctx, env); err != nil {
		t.Fatal(err)
	}
	if c.RuleCount(0) != 2 || !slices.Contains(readers(ctx, env), 0) {
		t.Errorf("after healing the cut: %d rules on 0 (want the partition's 2), readers %v", c.RuleCount(0), readers(ctx, env))
	}
	if _, err := f.(nemesis.Prover).Prove(ctx, env); err == nil || !strings.Contains(err.Error(), "still reaches broker 0") {
		t.Errorf("proof of a healed cut: %v", err)
	}
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := env.Heal(ctx, histories.FPartition, time.Second); err != nil {
		t.Fatal(err)
	}
	if c.RuleCount(0) != 0 || c.RuleCount(2) != 0 || !slices.Contains(readers(ctx, env), 0) {
		t.Errorf("heal partition left %d rules on 0, readers %v", c.RuleCount(0), readers(ctx, env))
	}
}

func TestCutClientsRefusals(t *testing.T) {
	env, c, _ := newFakeEnv()
	ctx := context.Background()
	if err := c.Pause(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		nodes []int32
		want  string
	}{
		{[]int32{1000}, "node 1000 is a controller: clients talk to brokers only"},
		{[]int32{2}, "broker 2 is down or paused: cannot cut its clients"},
	} {
		f, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: tc.nodes}})
		if err := env.Inject(ctx, f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cut-clients %v: %v, want %q", tc.nodes, err, tc.want)
		}
	}
}

// TestCutClientsContainers: with client containers running (the Java
// driver's JVMs on Docker), the cut drops every client address, the
// host's and each container's, and its heal removes exactly those rules.
func TestCutClientsContainers(t *testing.T) {
	env, c, _ := newFakeEnv()
	var buf strings.Builder
	env.Recorder = histories.NewRecorder(&buf)
	c.ClientCtrs = []netip.Addr{netip.MustParseAddr("10.9.0.254"), netip.MustParseAddr("10.9.0.253")}
	ctx := context.Background()
	f, err := nemesis.NewFault(nemesis.Step{Fault: histories.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	c.Mu.Lock()
	rules := slices.Clone(c.Rules[0])
	c.Mu.Unlock()
	var want []string
	for _, a := range []string{"10.9.0.1", "10.9.0.254", "10.9.0.253"} {
		want = append(want,
			"-A INPUT -s "+a+"/32 -p tcp --dport 9092 -m comment --comment kchaos -j DROP",
			"-A OUTPUT -d "+a+"/32 -p tcp --sport 9092 -m comment --comment kchaos -j DROP")
	}
	slices.Sort(rules)
	slices.Sort(want)
	if !slices.Equal(rules, want) {
		t.Errorf("rules on 0:\n%s\nwant\n%s", strings.Join(rules, "\n"), strings.Join(want, "\n"))
	}
	// A container started after the cut is not in it: Heal removes what
	// Inject added, not what ClientAddrs says now.
	c.Mu.Lock()
	c.ClientCtrs = append(c.ClientCtrs, netip.MustParseAddr("10.9.0.252"))
	c.Mu.Unlock()
	if err := f.Heal(ctx, env); err != nil {
		t.Fatal(err)
	}
	if n := c.RuleCount(0); n != 0 {
		t.Errorf("after heal: %d rules on 0, want 0", n)
	}
	if err := env.Recorder.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := proofOf(t, evs, histories.FCutClients)
	var v histories.NemesisValue
	_ = ev.Decode(&v)
	if v.Details["client_addr"] != "10.9.0.1" || fmt.Sprint(v.Details["client_addrs"]) != "[10.9.0.1 10.9.0.254 10.9.0.253]" {
		t.Errorf("details %v", v.Details)
	}
}
