//go:build integration

package network_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
	"github.com/kchaos/kchaos/nemesis/network"
)

// netState is every node's full `tc qdisc show` and `iptables -S`: a heal
// is exact when it brings back precisely what was there before.
func netState(h *nt.Harness) map[int32]string {
	h.T.Helper()
	out := map[int32]string{}
	for _, id := range h.Env.AllNodes() {
		q, err := h.C.Exec(context.Background(), id, "tc", "qdisc", "show")
		if err != nil {
			h.T.Fatal(err)
		}
		r, err := h.C.Exec(context.Background(), id, "iptables", "-w", "5", "-S")
		if err != nil {
			h.T.Fatal(err)
		}
		out[id] = q + "--\n" + r
	}
	return out
}

func sameNet(h *nt.Harness, before map[int32]string, when string) {
	h.T.Helper()
	after := netState(h)
	for id, b := range before {
		if after[id] != b {
			h.T.Errorf("node %d %s: network state differs:\nbefore:\n%s\nafter:\n%s", id, when, b, after[id])
		}
	}
	h.NoRules()
	for _, id := range h.Env.AllNodes() {
		if q, err := network.ListQdiscs(context.Background(), h.Env, id); err != nil || len(q) > 0 {
			h.T.Errorf("node %d %s: kchaos qdiscs %v (%v)", id, when, q, err)
		}
	}
}

// injectFault injects st and returns the fault (for a second Prove) and
// the proof its op recorded.
func injectFault(h *nt.Harness, st nemesis.Step) (nemesis.Fault, map[string]any, histories.NemesisValue) {
	h.T.Helper()
	f, err := nemesis.NewFault(st)
	if err != nil {
		h.T.Fatal(err)
	}
	if err := h.Env.Inject(context.Background(), f); err != nil {
		h.T.Fatalf("%s: %v", st.Fault, err)
	}
	ev, v, ok := nt.Completion(h.NemesisOps(), st.Fault)
	nt.Must(h.T, ok && ev.Type == histories.OK, "%s completion %+v", st.Fault, ev)
	p, _ := v.Details["proof"].(map[string]any)
	nt.Must(h.T, p != nil, "%s: no proof in %v", st.Fault, v.Details)
	h.T.Logf("%s on %v: proof %v", st.Fault, v.Nodes, p)
	return f, p, v
}

// reprove proves f again after its heal: the proof must now fail, or it
// could not have failed before either.
func reprove(h *nt.Harness, f nemesis.Fault, want string) {
	h.T.Helper()
	_, err := f.(nemesis.Prover).Prove(context.Background(), h.Env)
	nt.Must(h.T, err != nil && strings.Contains(err.Error(), want), "%s proved again after its heal: %v (want %q)", f.Name(), err, want)
	h.T.Logf("%s after its heal: proof fails as it must: %v", f.Name(), err)
}

// kernelHasNetem asks a broker's kernel (the host's) whether it has the
// netem qdisc, on the container's loopback (no traffic of the run uses it).
func kernelHasNetem(h *nt.Harness) (bool, string) {
	out, err := h.C.Exec(context.Background(), 0, "sh", "-c", "tc qdisc add dev lo root netem delay 1ms 2>&1 && tc qdisc del dev lo root")
	return err == nil, strings.TrimSpace(out)
}

// TestNetFaults: on one real cluster, each network fault with its proof of
// effect and its exact heal (every node's `tc qdisc show` and `iptables
// -S` as before), and each existing fault's proof, which must fail once
// the fault is healed:
//   - netem rate on the leader's links to its followers (htb; no netem
//     needed), and on the leader's links to the clients;
//   - netem delay: where the kernel lacks sch_netem (this machine's does)
//     the schedule fails at that step, named, with the op info and nothing
//     left behind; where it has it, the proof measures the added delay;
//   - cut-clients on the leader: the kchaos host cannot connect, another
//     broker can; inter-broker replication goes on;
//   - partition, pause and kill proofs.
func TestNetFaults(t *testing.T) {
	h := nt.Start(t, nil)
	h.Replicated("nf", 100)
	ctx := context.Background()
	before := netState(h)

	// Rate on the leader's replication links.
	f, p, v := injectFault(h, nemesis.Step{Fault: histories.FNetem,
		Target: &nemesis.Target{Partition: 0}, Params: &network.NetemParams{Shape: nemesis.ShapeLeaderFollowers, Netem: &nemesis.NetemSpec{Rate: "1mbit"}}})
	nt.Must(t, nt.Equal(v.Nodes, []int32{0, 1, 2}), "netem nodes %v", v.Nodes)
	nt.Must(t, fmt.Sprint(p["class_packets"]) != "0", "no packet through the class: %v", p)
	for _, id := range []int32{0, 1, 2} {
		q, _ := network.ListQdiscs(ctx, h.Env, id)
		nt.Must(t, len(q) == 1, "node %d qdiscs %v", id, q)
	}
	q, _ := h.C.Exec(ctx, 0, "tc", "-s", "class", "show", "dev", "eth0")
	t.Logf("broker 0 class after the proof:\n%s", q)
	h.Produce(200, "slow", false) // replication through 1mbit
	h.Until(nt.ISR(0, 1, 2), 30*time.Second)
	h.Heal(histories.FNetem)
	sameNet(h, before, "after heal netem")
	reprove(h, f, "the kernel does not show class ca05:1")

	// Rate on the leader's links to the client side.
	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FNetem,
		Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &network.NetemParams{Shape: network.ShapeClients, Netem: &nemesis.NetemSpec{Rate: "2mbit"}}})
	nt.Must(t, strings.HasPrefix(fmt.Sprint(p["link"]), "host->"), "client link probe %v", p["link"])
	h.Heal(histories.HealAll)
	sameNet(h, before, "after the clients netem's heal")

	// Delay: the kernel decides.
	has, msg := kernelHasNetem(h)
	t.Logf("kernel has sch_netem: %v (%s)", has, msg)
	s := nemesis.Schedule{Steps: []nemesis.Step{
		{Fault: histories.FNetem, Target: nodes(2), Params: &network.NetemParams{Shape: nemesis.ShapeIsolate,
			Netem: &nemesis.NetemSpec{Delay: nemesis.Duration(100 * time.Millisecond), Jitter: nemesis.Duration(10 * time.Millisecond)}}},
		{Wait: nemesis.Duration(time.Second)},
	}}
	err := (&nemesis.Runner{Env: h.Env, HealTimeout: time.Minute}).Run(ctx, s)
	ev, v, _ := nt.Completion(h.NemesisOps(), histories.FNetem)
	if has {
		nt.Must(t, err == nil && ev.Type == histories.OK, "netem delay: %v %+v", err, ev)
		t.Logf("netem delay proof: %v", v.Details["proof"])
	} else {
		nt.Must(t, err != nil && strings.Contains(err.Error(), "step 0 (netem isolate)") &&
			strings.Contains(err.Error(), "the kernel has no netem qdisc"), "schedule error %v", err)
		nt.Must(t, ev.Type == histories.Info && strings.Contains(ev.Error, "Specified qdisc kind is unknown"), "op %s %q", ev.Type, ev.Error)
		t.Logf("netem delay on this kernel: the schedule fails: %v", err)
	}
	sameNet(h, before, "after the delay step and the final heal")

	// cut-clients on the leader.
	f, p, v = injectFault(h, nemesis.Step{Fault: histories.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
	nt.Must(t, fmt.Sprint(p["cut"]) == "[host->0 dropped]" && strings.HasSuffix(fmt.Sprint(p["control"]), " open"), "proof %v", p)
	rules, _ := network.ListRules(ctx, h.Env, 0)
	nt.Must(t, len(rules) == 2, "rules on 0: %v", rules)
	t.Logf("cut-clients rules on broker 0 (client addr %v): %v", v.Details["client_addr"], rules)
	begin := time.Now()
	perr := produceFails(h, 5*time.Second)
	nt.Must(t, perr != nil, "a produce to leader 0 succeeded through the client cut")
	t.Logf("produce to the cut leader failed after %s: %v", nt.Since(begin), perr)
	// The broker side is untouched: 0 stays live and leads, the ISR whole.
	h.Until(nemesis.Condition{Live: []int32{0, 1, 2}, Leader: ptr(int32(0)), ISR: []int32{0, 1, 2}}, 10*time.Second)
	h.Heal(histories.FPartition)
	sameNet(h, before, "after heal partition (client cut)")
	reprove(h, f, "still reaches broker 0")

	// Partition, pause, kill.
	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FPartition, Target: nodes(2)})
	// Node 2 is cut from all (no control there); each other node from it.
	nt.Must(t, fmt.Sprint(p["cut"]) == "[0->2 dropped 1->2 dropped 2->0 dropped 1000->2 dropped]" &&
		fmt.Sprint(p["control"]) == "[0->1000 open 1->1000 open 1000->0 open]", "partition proof %v", p)
	h.Heal(histories.FPartition)
	sameNet(h, before, "after heal partition")
	reprove(h, f, "still reaches cut peer")

	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FPause, Target: nodes(1)})
	nt.Must(t, strings.Contains(fmt.Sprint(p["frozen"]), "accepts TCP but no answer"), "pause proof %v", p)
	h.Heal(histories.FPause)
	reprove(h, f, "is not paused")

	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FKill, Target: nodes(2)})
	nt.Must(t, strings.Contains(fmt.Sprint(p["stopped"]), "2: not running"), "kill proof %v", p)
	h.Heal(histories.FKill)
	reprove(h, f, "still runs after the kill")
	if err := (&nemesis.Runner{Env: h.Env}).FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}

// produceFails sends one record to partition 0 and wants it to fail
// within the delivery timeout (its leader is out of the client's reach).
func produceFails(h *nt.Harness, timeout time.Duration) error {
	h.T.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.C.Bootstrap()...), kgo.DefaultProduceTopic(h.Env.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RecordDeliveryTimeout(timeout))
	if err != nil {
		h.T.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	return cl.ProduceSync(ctx, &kgo.Record{Value: []byte("cut"), Partition: 0}).FirstErr()
}

// iptablesSave is every rule of node id's `iptables-save` (all tables,
// each rule under its table), for the heal's exactness: the rules a heal
// leaves must be those that were there before. (The table headers and
// policies are left out: the filter table is listed only once a rule has
// been added to it, even after that rule is gone.)
func iptablesSave(h *nt.Harness, id int32) string {
	h.T.Helper()
	out, err := h.C.Exec(context.Background(), id, "iptables-save")
	if err != nil {
		h.T.Fatal(err)
	}
	var keep []string
	table := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "*") {
			table = l
		}
		if strings.HasPrefix(l, "-A ") {
			keep = append(keep, table+" "+l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestNetemLoss: a 10% loss on partition 0's leader-follower links, on a
// real cluster whose kernel may lack sch_netem (this machine's does): the
// rules (iptables statistic, tagged kchaos-netem) are on the three brokers
// and nowhere else, with no qdisc; the proof reads each probability back
// and the probe's datagrams are counted by the rule's counter; records
// still replicate through the loss (acks=all, the ISR whole); heal
// partition leaves the loss rules, heal netem removes them and leaves
// every node's iptables-save as before, with no qdisc.
func TestNetemLoss(t *testing.T) {
	h := nt.Start(t, nil)
	h.Replicated("nl", 100)
	ctx := context.Background()
	before := netState(h)
	saved := map[int32]string{}
	for _, id := range h.Env.AllNodes() {
		saved[id] = iptablesSave(h, id)
	}
	has, msg := kernelHasNetem(h)
	t.Logf("kernel has sch_netem: %v (%s)", has, msg)

	_, p, v := injectFault(h, nemesis.Step{Fault: histories.FNetem,
		Target: &nemesis.Target{Partition: 0}, Params: &network.NetemParams{Shape: nemesis.ShapeLeaderFollowers, Netem: &nemesis.NetemSpec{Loss: 10}}})
	nt.Must(t, nt.Equal(v.Nodes, []int32{0, 1, 2}), "netem nodes %v", v.Nodes)
	nt.Must(t, fmt.Sprint(p["loss_rules"]) == "map[0:[OUTPUT -d "+ip(h, 1)+" probability 0.10000000009 OUTPUT -d "+ip(h, 2)+" probability 0.10000000009] 1:[OUTPUT -d "+ip(h, 0)+" probability 0.10000000009] 2:[OUTPUT -d "+ip(h, 0)+" probability 0.10000000009]]",
		"loss rules read back %v", p["loss_rules"])
	dropped, _ := p["loss_dropped"].(float64)
	nt.Must(t, dropped > 0 && p["installed"] == nil, "proof %v", p)
	t.Logf("loss proof: %s: %v of %v dropped, took %v ms", p["loss_probe"], p["loss_dropped"], p["loss_sent"], p["took_ms"])
	for _, id := range h.Env.AllNodes() {
		l, _ := network.ListLossRules(ctx, h.Env, id)
		q, _ := network.ListQdiscs(ctx, h.Env, id)
		wantRules := map[int32]int{0: 2, 1: 1, 2: 1}[id]
		nt.Must(t, len(l) == wantRules && len(q) == 0, "node %d: loss rules %v, qdiscs %v", id, l, q)
	}
	// Replication goes on through the loss: TCP retransmits.
	begin := time.Now()
	h.Produce(500, "lossy", false)
	h.Until(nt.ISR(0, 1, 2), 30*time.Second)
	out, _ := h.C.Exec(ctx, 0, "iptables", "-w", "5", "-S", "-v")
	t.Logf("500 acks=all records through the loss in %s; broker 0's rules:\n%s", nt.Since(begin), out)

	// heal partition is not netem's heal.
	h.Heal(histories.FPartition)
	l, _ := network.ListLossRules(ctx, h.Env, 0)
	nt.Must(t, len(l) == 2, "heal partition removed loss rules: left %v", l)
	h.Heal(histories.FNetem)
	ev, hv, _ := nt.Completion(h.NemesisOps(), histories.FHeal)
	nt.Must(t, ev.Type == histories.OK && fmt.Sprint(hv.Details["loss_rules_removed"]) == "4", "heal netem %s %v", ev.Type, hv.Details)
	sameNet(h, before, "after heal netem (loss)")
	for _, id := range h.Env.AllNodes() {
		nt.Must(t, iptablesSave(h, id) == saved[id], "node %d iptables-save differs after the heal:\nbefore:\n%s\nafter:\n%s", id, saved[id], iptablesSave(h, id))
		l, _ := network.ListLossRules(ctx, h.Env, id)
		nt.Must(t, len(l) == 0, "node %d loss rules left %v", id, l)
	}
	if err := (&nemesis.Runner{Env: h.Env}).FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}

// ip is node id's address.
func ip(h *nt.Harness, id int32) string {
	n, _ := h.C.Node(id)
	return n.IP
}

func ptr[T any](v T) *T { return &v }
