package network

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

func netemStep(shape string, target *nemesis.Target, spec nemesis.NetemSpec) nemesis.Step {
	return nemesis.Step{Fault: histories.FNetem, Target: target, Params: &NetemParams{Shape: shape, Netem: &spec}}
}

func tcNodes(c *fakeCluster) []int32 {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	var out []int32
	for id, t := range c.Net.TC {
		if t != nil {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// TestNetemRateAndHeal: a rate limit on the leader's links to its
// followers installs the htb tree on the three brokers (one filter per
// shaped peer), proves that the probe's packets went through the class,
// and heal netem removes every qdisc it added.
func TestNetemRateAndHeal(t *testing.T) {
	s := nemesis.Schedule{Steps: []nemesis.Step{
		netemStep(nemesis.ShapeLeaderFollowers, nil, nemesis.NetemSpec{Rate: "1mbit"}),
		{Heal: histories.FNetem},
	}}
	var runErr error
	var afterInject []int32
	evs := recorded(t, func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin) {
		r := &nemesis.Runner{Env: env, HealTimeout: 2 * time.Second, OnStep: func(i, n int, name string) {
			if i == 1 {
				afterInject = tcNodes(c)
			}
		}}
		runErr = r.Run(context.Background(), s)
		if got := tcNodes(c); len(got) != 0 {
			t.Errorf("qdiscs left on %v", got)
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if fmt.Sprint(afterInject) != "[0 1 2]" {
		t.Errorf("qdiscs on %v after the injection, want [0 1 2]", afterInject)
	}
	ev, p := proofOf(t, evs, histories.FNetem)
	var v histories.NemesisValue
	_ = ev.Decode(&v)
	if ev.Type != histories.OK || fmt.Sprint(v.Details["links"]) != "map[0:[eth0:10.9.0.21 eth0:10.9.0.22] 1:[eth0:10.9.0.20] 2:[eth0:10.9.0.20]]" {
		t.Errorf("netem %s links %v", ev.Type, v.Details["links"])
	}
	if fmt.Sprint(p["class_packets"]) == "0" || p["link"] != "0->10.9.0.21:9092 (class on node 0 eth0)" ||
		!strings.Contains(fmt.Sprint(p["installed"]), "0 eth0:class ca05:1 rate 1mbit, 2 filters") {
		t.Errorf("proof %v", p)
	}
	found := false
	for _, e := range evs {
		var hv histories.NemesisValue
		_ = e.Decode(&hv)
		if e.F == histories.FHeal && e.Type == histories.OK && hv.Fault == histories.FNetem {
			found = fmt.Sprint(hv.Details["qdiscs_removed"]) == "3"
		}
	}
	if !found {
		t.Errorf("no heal netem op with qdiscs_removed 3: %s", summary(evs))
	}
}

// TestNetemDelayMeasured: with a delay, the proof times connects on a
// shaped link before and after and wants the added round trip.
func TestNetemDelayMeasured(t *testing.T) {
	env, c, _ := newFakeEnv()
	f, _ := nemesis.NewFault(netemStep(nemesis.ShapeIsolate, &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{2}},
		nemesis.NetemSpec{Delay: nemesis.Duration(20 * time.Millisecond), Jitter: nemesis.Duration(5 * time.Millisecond), Loss: 1}))
	if err := env.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	nf := f.(*netemFault)
	if nf.baseline == nil || nf.baseline.median() != 100*time.Microsecond || nf.probe.dirs != 2 {
		t.Fatalf("baseline %v, probe %+v", nf.baseline, nf.probe)
	}
	// Now make the delay vanish behind the proof's back: it must see it.
	c.Mu.Lock()
	for _, tc := range c.Net.TC {
		tc.Netem = []string{"loss", "1%", "delay", "0s"}
	}
	c.Mu.Unlock()
	_, err := nf.Prove(context.Background(), env)
	if err == nil || !strings.Contains(err.Error(), "fastest connect 100µs, want at least 27.1ms") {
		t.Errorf("proof of a link without its delay: %v", err)
	}
}

// TestNetemWithoutKernelSupport: on a kernel without sch_netem (this
// machine's), a delay fails at once with the reason, and what the script
// added before the failing line (the htb root) is taken back.
func TestNetemWithoutKernelSupport(t *testing.T) {
	env, c, _ := newFakeEnv()
	c.Net.NoNetem = true
	f, _ := nemesis.NewFault(netemStep(nemesis.ShapeRacks, nil, nemesis.NetemSpec{Delay: nemesis.Duration(50 * time.Millisecond)}))
	err := env.Inject(context.Background(), f)
	if err == nil || !strings.Contains(err.Error(), "the kernel has no netem qdisc (CONFIG_NET_SCH_NETEM") {
		t.Errorf("inject: %v", err)
	}
	if got := tcNodes(c); len(got) != 0 {
		t.Errorf("qdiscs left on %v after the failed injection", got)
	}
	// A rate alone needs no netem and works there.
	f, _ = nemesis.NewFault(netemStep(nemesis.ShapeRacks, nil, nemesis.NetemSpec{Rate: "2mbit"}))
	if err := env.Inject(context.Background(), f); err != nil {
		t.Errorf("rate on a kernel without netem: %v", err)
	}
}

// TestNetemClientsAndPausedHeal: shape clients shapes the targets' egress
// to the client side; a node paused since is healed when resumed.
func TestNetemClientsAndPausedHeal(t *testing.T) {
	env, c, _ := newFakeEnv()
	f, _ := nemesis.NewFault(netemStep(ShapeClients, &nemesis.Target{Role: nemesis.RoleLeader}, nemesis.NetemSpec{Rate: "1mbit"}))
	if err := env.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	nf := f.(*netemFault)
	if fmt.Sprint(nf.linksJSON()) != "map[0:[eth0:10.9.0.1]]" || nf.probe.from != hostSide {
		t.Errorf("links %v probe %+v", nf.linksJSON(), nf.probe)
	}
	again, _ := nemesis.NewFault(netemStep(ShapeClients, &nemesis.Target{Role: nemesis.RoleLeader}, nemesis.NetemSpec{Rate: "1mbit"}))
	if err := env.Inject(context.Background(), again); err == nil || !strings.Contains(err.Error(), "already has a kchaos netem") {
		t.Errorf("second netem on node 0: %v", err)
	}
	ctx := context.Background()
	if err := c.Pause(ctx, 0); err != nil {
		t.Fatal(err)
	}
	err := env.Heal(ctx, histories.FNetem, time.Second)
	if err != nil || fmt.Sprint(tcNodes(c)) != "[0]" || !slices.Contains(pendingNodes(env), 0) {
		t.Fatalf("heal with node 0 paused: %v, qdiscs on %v, pending %v", err, tcNodes(c), pendingNodes(env))
	}
	p := processStep(t, nemesis.Step{Fault: histories.FResume})
	if _, _, err := p.Inject(ctx, env); err != nil {
		t.Fatal(err)
	}
	if got := tcNodes(c); len(got) != 0 || len(pendingNodes(env)) != 0 {
		t.Errorf("after resume: qdiscs on %v, pending %v", got, pendingNodes(env))
	}
	if _, err := nemesis.NewFault(netemStep(ShapeClients, &nemesis.Target{Role: nemesis.RoleController}, nemesis.NetemSpec{Rate: "1mbit"})); err != nil {
		t.Fatal(err)
	}
	ctrl, _ := nemesis.NewFault(netemStep(ShapeClients, &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1000}}, nemesis.NetemSpec{Rate: "1mbit"}))
	if err := env.Inject(ctx, ctrl); err == nil || !strings.Contains(err.Error(), "node 1000 is a controller") {
		t.Errorf("clients links of a controller: %v", err)
	}
}

// Real output of tc 6.1 on this machine's kernel (a veth in a network
// namespace, the netem line from tc-netem(8)'s format).
const realTC = `qdisc htb ca05: root refcnt 3 r2q 10 default 0 direct_packets_stat 0 direct_qlen 1000
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
qdisc netem ca06: parent ca05:1 limit 1000 delay 100ms  20ms loss 5% duplicate 1% reorder 25% gap 1
 Sent 4242 bytes 31 pkt (dropped 2, overlimits 0 requeues 0) 
==
class htb ca05:1 root leaf ca06: prio 0 rate 1Mbit ceil 1Mbit burst 1600b cburst 1600b 
 Sent 3180 bytes 29 pkt (dropped 0, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
 lended: 0 borrowed: 0 giants: 0
 tokens: 200000 ctokens: 200000

==
filter parent ca05: protocol ip pref 1 u32 chain 0 
filter parent ca05: protocol ip pref 1 u32 chain 0 fh 800: ht divisor 1 
filter parent ca05: protocol ip pref 1 u32 chain 0 fh 800::800 order 2048 key ht 800 bkt 0 *flowid ca05:1 not_in_hw 
  match 0ae7fa02/ffffffff at 16
`

func TestParseTC(t *testing.T) {
	st := parseTC(realTC)
	if !st.found || st.rate != "1Mbit" || st.pkts != 29 || st.netemDrops != 2 ||
		!strings.Contains(st.netemLine, " loss 5% ") || !st.filterTarget["0ae7fa02/ffffffff"] || len(st.filterTarget) != 1 {
		t.Errorf("parseTC: %+v", st)
	}
	roots := rootQdiscs("qdisc noqueue 0: dev lo root refcnt 2 \nqdisc htb ca05: dev eth0 root refcnt 3 r2q 10 default 0\nqdisc netem ca06: dev eth0 parent ca05:1 limit 1000\n")
	if fmt.Sprint(roots) != "map[eth0:ca05: lo:0:]" {
		t.Errorf("rootQdiscs: %v", roots)
	}
	for s, want := range map[string]float64{"1mbit": 1e6, "1Mbit": 1e6, "1500Kbit": 1.5e6, "10gbit": 1e10, "8000bit": 8000} {
		if got, err := parseLinkRate(s); err != nil || got != want {
			t.Errorf("parseLinkRate(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"1mbps", "1 mbit", "", "100bit", "fast"} {
		if _, err := parseLinkRate(s); err == nil {
			t.Errorf("parseLinkRate(%q) accepted", s)
		}
	}
}

func TestPercent(t *testing.T) {
	var spec nemesis.NetemSpec
	if err := yaml.Unmarshal([]byte("{loss: 5%, duplicate: 0.5%, delay: 100ms}"), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Loss != 5 || spec.Duplicate != 0.5 || spec.Delay.Std() != 100*time.Millisecond {
		t.Errorf("decoded %+v", spec)
	}
	b, _ := json.Marshal(spec)
	if string(b) != `{"delay":"100ms","loss":"5%","duplicate":"0.5%"}` {
		t.Errorf("json %s", b)
	}
	var back nemesis.NetemSpec
	if err := json.Unmarshal(b, &back); err != nil || back != spec {
		t.Errorf("round trip %+v %v", back, err)
	}
	// Loss is no netem parameter: it is an iptables rule (netem_loss.go).
	if args := strings.Join((*linkSpec)(&spec).netemArgs(), " "); args != "delay 100000us duplicate 0.5%" {
		t.Errorf("netem args %q", args)
	}
	for _, bad := range []string{"{loss: 5}", "{loss: 0.05}", "{loss: 0%}", "{loss: 101%}", "{loss: x%}"} {
		if err := yaml.Unmarshal([]byte(bad), &spec); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestNetemAndCutClientsValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // empty: valid
	}{
		{"netem lf", "steps:\n - fault: netem\n   shape: leader-followers\n   target: {partition: 0}\n   netem: {delay: 100ms, jitter: 20ms, loss: 5%, duplicate: 1%, reorder: 25%, rate: 1mbit}", nil},
		{"netem clients", "steps:\n - fault: netem\n   shape: clients\n   target: {role: leader}\n   netem: {delay: 50ms}", nil},
		{"netem racks side", "steps:\n - fault: netem\n   shape: racks\n   target: {rack: b}\n   netem: {rate: 800kbit}", nil},
		{"netem groups", "steps:\n - fault: netem\n   shape: groups\n   groups: [[0], [1, 2]]\n   netem: {loss: 10%}", nil},
		{"netem heal", "steps:\n - heal: netem", nil},
		{"cut-clients", "steps:\n - fault: cut-clients\n   target: {role: followers, partition: 0}", nil},
		{"netem without params", "steps:\n - fault: netem\n   shape: racks", []string{"nemesis.steps[0].netem: fault netem needs netem"}},
		{"netem empty", "steps:\n - fault: netem\n   shape: racks\n   netem: {}", []string{"nemesis.steps[0].netem: empty"}},
		{"netem isolate needs target", "steps:\n - fault: netem\n   netem: {delay: 1ms}", []string{"nemesis.steps[0].target: fault netem (shape isolate) needs a target"}},
		{"partition bridge needs target", "steps:\n - fault: partition\n   shape: bridge", []string{"nemesis.steps[0].target: fault partition (shape bridge) needs a target"}},
		{"netem bridge needs target", "steps:\n - fault: netem\n   shape: bridge\n   netem: {loss: 5%}", []string{"nemesis.steps[0].target: fault netem (shape bridge) needs a target"}},
		{"partition bridge", "steps:\n - fault: partition\n   shape: bridge\n   target: {role: followers, count: 1}", nil},
		{"netem clients needs target", "steps:\n - fault: netem\n   shape: clients\n   netem: {delay: 1ms}", []string{"nemesis.steps[0].target: fault netem (shape clients) needs a target"}},
		{"clients is no partition shape", "steps:\n - fault: partition\n   shape: clients\n   target: {role: leader}", []string{`nemesis.steps[0].shape: unknown shape "clients"`}},
		{"netem bad shape", "steps:\n - fault: netem\n   shape: ring\n   netem: {delay: 1ms}", []string{`nemesis.steps[0].shape: unknown shape "ring"`}},
		{"jitter without delay", "steps:\n - fault: netem\n   shape: racks\n   netem: {jitter: 5ms, loss: 1%}", []string{"nemesis.steps[0].netem.jitter: needs a delay"}},
		{"jitter above delay", "steps:\n - fault: netem\n   shape: racks\n   netem: {delay: 5ms, jitter: 5ms}", []string{"nemesis.steps[0].netem.jitter: needs a delay and must be below it"}},
		{"reorder without delay", "steps:\n - fault: netem\n   shape: racks\n   netem: {reorder: 5%}", []string{"nemesis.steps[0].netem.reorder: needs a delay"}},
		{"delay too long", "steps:\n - fault: netem\n   shape: racks\n   netem: {delay: 11s}", []string{"nemesis.steps[0].netem.delay: want 0 to 10s"}},
		{"bad rate", "steps:\n - fault: netem\n   shape: racks\n   netem: {rate: 1mbps}", []string{`nemesis.steps[0].netem.rate: rate "1mbps"`}},
		{"loss without sign", "steps:\n - fault: netem\n   shape: racks\n   netem: {loss: 5}", []string{`write a percentage with its sign`}},
		{"unknown netem field", "steps:\n - fault: netem\n   shape: racks\n   netem: {latency: 5ms}", []string{"field latency not found"}},
		{"netem on kill", "steps:\n - fault: kill\n   target: {role: leader}\n   netem: {delay: 1ms}", []string{"nemesis.steps[0].netem: only for fault netem"}},
		{"cut-clients needs target", "steps:\n - fault: cut-clients", []string{"nemesis.steps[0].target: fault cut-clients needs a target"}},
		{"cut-clients shape", "steps:\n - fault: cut-clients\n   shape: racks\n   target: {role: leader}", []string{"nemesis.steps[0].shape: only for faults partition and netem"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParse(t, tc.yaml, tc.want) })
	}
}
