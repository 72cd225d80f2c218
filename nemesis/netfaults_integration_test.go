//go:build integration

package nemesis_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// netState is every node's full `tc qdisc show` and `iptables -S`: a heal
// is exact when it brings back precisely what was there before.
func netState(h *harness) map[int32]string {
	h.t.Helper()
	out := map[int32]string{}
	for _, id := range h.env.AllNodes() {
		q, err := h.c.Exec(context.Background(), id, "tc", "qdisc", "show")
		if err != nil {
			h.t.Fatal(err)
		}
		r, err := h.c.Exec(context.Background(), id, "iptables", "-w", "5", "-S")
		if err != nil {
			h.t.Fatal(err)
		}
		out[id] = q + "--\n" + r
	}
	return out
}

func sameNet(h *harness, before map[int32]string, when string) {
	h.t.Helper()
	after := netState(h)
	for id, b := range before {
		if after[id] != b {
			h.t.Errorf("node %d %s: network state differs:\nbefore:\n%s\nafter:\n%s", id, when, b, after[id])
		}
	}
	h.noRules()
	for _, id := range h.env.AllNodes() {
		if q, err := h.env.ListQdiscs(context.Background(), id); err != nil || len(q) > 0 {
			h.t.Errorf("node %d %s: kchaos qdiscs %v (%v)", id, when, q, err)
		}
	}
}

// injectFault injects st and returns the fault (for a second Prove) and
// the proof its op recorded.
func injectFault(h *harness, st nemesis.Step) (nemesis.Fault, map[string]any, histories.NemesisValue) {
	h.t.Helper()
	f, err := nemesis.NewFault(st)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.env.Inject(context.Background(), f); err != nil {
		h.t.Fatalf("%s: %v", st.Fault, err)
	}
	ev, v, ok := completion(h.nemesisOps(), st.Fault)
	must(h.t, ok && ev.Type == histories.OK, "%s completion %+v", st.Fault, ev)
	p, _ := v.Details["proof"].(map[string]any)
	must(h.t, p != nil, "%s: no proof in %v", st.Fault, v.Details)
	h.t.Logf("%s on %v: proof %v", st.Fault, v.Nodes, p)
	return f, p, v
}

// reprove proves f again after its heal: the proof must now fail, or it
// could not have failed before either.
func reprove(h *harness, f nemesis.Fault, want string) {
	h.t.Helper()
	_, err := f.(nemesis.Prover).Prove(context.Background(), h.env)
	must(h.t, err != nil && strings.Contains(err.Error(), want), "%s proved again after its heal: %v (want %q)", f.Name(), err, want)
	h.t.Logf("%s after its heal: proof fails as it must: %v", f.Name(), err)
}

// kernelHasNetem asks a broker's kernel (the host's) whether it has the
// netem qdisc, on the container's loopback (no traffic of the run uses it).
func kernelHasNetem(h *harness) (bool, string) {
	out, err := h.c.Exec(context.Background(), 0, "sh", "-c", "tc qdisc add dev lo root netem delay 1ms 2>&1 && tc qdisc del dev lo root")
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
	h := start(t, nil)
	h.replicated("nf", 100)
	ctx := context.Background()
	before := netState(h)

	// Rate on the leader's replication links.
	f, p, v := injectFault(h, nemesis.Step{Fault: histories.FNetem,
		Target: &nemesis.Target{Partition: 0}, Params: &nemesis.NetemParams{Shape: nemesis.ShapeLeaderFollowers, Netem: &nemesis.NetemSpec{Rate: "1mbit"}}})
	must(t, equal(v.Nodes, []int32{0, 1, 2}), "netem nodes %v", v.Nodes)
	must(t, fmt.Sprint(p["class_packets"]) != "0", "no packet through the class: %v", p)
	for _, id := range []int32{0, 1, 2} {
		q, _ := h.env.ListQdiscs(ctx, id)
		must(t, len(q) == 1, "node %d qdiscs %v", id, q)
	}
	q, _ := h.c.Exec(ctx, 0, "tc", "-s", "class", "show", "dev", "eth0")
	t.Logf("broker 0 class after the proof:\n%s", q)
	h.produce(200, "slow", false) // replication through 1mbit
	h.until(isr(0, 1, 2), 30*time.Second)
	h.heal(histories.FNetem)
	sameNet(h, before, "after heal netem")
	reprove(h, f, "the kernel does not show class ca05:1")

	// Rate on the leader's links to the client side.
	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FNetem,
		Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &nemesis.NetemParams{Shape: nemesis.ShapeClients, Netem: &nemesis.NetemSpec{Rate: "2mbit"}}})
	must(t, strings.HasPrefix(fmt.Sprint(p["link"]), "host->"), "client link probe %v", p["link"])
	h.heal(histories.HealAll)
	sameNet(h, before, "after the clients netem's heal")

	// Delay: the kernel decides.
	has, msg := kernelHasNetem(h)
	t.Logf("kernel has sch_netem: %v (%s)", has, msg)
	s := nemesis.Schedule{Steps: []nemesis.Step{
		{Fault: histories.FNetem, Target: nodes(2), Params: &nemesis.NetemParams{Shape: nemesis.ShapeIsolate,
			Netem: &nemesis.NetemSpec{Delay: nemesis.Duration(100 * time.Millisecond), Jitter: nemesis.Duration(10 * time.Millisecond)}}},
		{Wait: nemesis.Duration(time.Second)},
	}}
	err := (&nemesis.Runner{Env: h.env, HealTimeout: time.Minute}).Run(ctx, s)
	ev, v, _ := completion(h.nemesisOps(), histories.FNetem)
	if has {
		must(t, err == nil && ev.Type == histories.OK, "netem delay: %v %+v", err, ev)
		t.Logf("netem delay proof: %v", v.Details["proof"])
	} else {
		must(t, err != nil && strings.Contains(err.Error(), "step 0 (netem isolate)") &&
			strings.Contains(err.Error(), "the kernel has no netem qdisc"), "schedule error %v", err)
		must(t, ev.Type == histories.Info && strings.Contains(ev.Error, "Specified qdisc kind is unknown"), "op %s %q", ev.Type, ev.Error)
		t.Logf("netem delay on this kernel: the schedule fails: %v", err)
	}
	sameNet(h, before, "after the delay step and the final heal")

	// cut-clients on the leader.
	f, p, v = injectFault(h, nemesis.Step{Fault: histories.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
	must(t, fmt.Sprint(p["cut"]) == "[host->0 dropped]" && strings.HasSuffix(fmt.Sprint(p["control"]), " open"), "proof %v", p)
	rules, _ := h.env.ListRules(ctx, 0)
	must(t, len(rules) == 2, "rules on 0: %v", rules)
	t.Logf("cut-clients rules on broker 0 (client addr %v): %v", v.Details["client_addr"], rules)
	begin := time.Now()
	perr := h.produceFails(5 * time.Second)
	must(t, perr != nil, "a produce to leader 0 succeeded through the client cut")
	t.Logf("produce to the cut leader failed after %s: %v", since(begin), perr)
	// The broker side is untouched: 0 stays live and leads, the ISR whole.
	h.until(nemesis.Condition{Live: []int32{0, 1, 2}, Leader: ptr(int32(0)), ISR: []int32{0, 1, 2}}, 10*time.Second)
	h.heal(histories.FPartition)
	sameNet(h, before, "after heal partition (client cut)")
	reprove(h, f, "still reaches broker 0")

	// Partition, pause, kill.
	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FPartition, Target: nodes(2)})
	// Node 2 is cut from all (no control there); each other node from it.
	must(t, fmt.Sprint(p["cut"]) == "[0->2 dropped 1->2 dropped 2->0 dropped 1000->2 dropped]" &&
		fmt.Sprint(p["control"]) == "[0->1000 open 1->1000 open 1000->0 open]", "partition proof %v", p)
	h.heal(histories.FPartition)
	sameNet(h, before, "after heal partition")
	reprove(h, f, "still reaches cut peer")

	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FPause, Target: nodes(1)})
	must(t, strings.Contains(fmt.Sprint(p["frozen"]), "accepts TCP but no answer"), "pause proof %v", p)
	h.heal(histories.FPause)
	reprove(h, f, "is not paused")

	f, p, _ = injectFault(h, nemesis.Step{Fault: histories.FKill, Target: nodes(2)})
	must(t, strings.Contains(fmt.Sprint(p["stopped"]), "2: not running"), "kill proof %v", p)
	h.heal(histories.FKill)
	reprove(h, f, "still runs after the kill")
	if err := (&nemesis.Runner{Env: h.env}).FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}

// produceFails sends one record to partition 0 and wants it to fail
// within the delivery timeout (its leader is out of the client's reach).
func (h *harness) produceFails(timeout time.Duration) error {
	h.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.c.Bootstrap()...), kgo.DefaultProduceTopic(h.env.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RecordDeliveryTimeout(timeout))
	if err != nil {
		h.t.Fatal(err)
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
func iptablesSave(h *harness, id int32) string {
	h.t.Helper()
	out, err := h.c.Exec(context.Background(), id, "iptables-save")
	if err != nil {
		h.t.Fatal(err)
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
	h := start(t, nil)
	h.replicated("nl", 100)
	ctx := context.Background()
	before := netState(h)
	saved := map[int32]string{}
	for _, id := range h.env.AllNodes() {
		saved[id] = iptablesSave(h, id)
	}
	has, msg := kernelHasNetem(h)
	t.Logf("kernel has sch_netem: %v (%s)", has, msg)

	_, p, v := injectFault(h, nemesis.Step{Fault: histories.FNetem,
		Target: &nemesis.Target{Partition: 0}, Params: &nemesis.NetemParams{Shape: nemesis.ShapeLeaderFollowers, Netem: &nemesis.NetemSpec{Loss: 10}}})
	must(t, equal(v.Nodes, []int32{0, 1, 2}), "netem nodes %v", v.Nodes)
	must(t, fmt.Sprint(p["loss_rules"]) == "map[0:[OUTPUT -d "+ip(h, 1)+" probability 0.10000000009 OUTPUT -d "+ip(h, 2)+" probability 0.10000000009] 1:[OUTPUT -d "+ip(h, 0)+" probability 0.10000000009] 2:[OUTPUT -d "+ip(h, 0)+" probability 0.10000000009]]",
		"loss rules read back %v", p["loss_rules"])
	dropped, _ := p["loss_dropped"].(float64)
	must(t, dropped > 0 && p["installed"] == nil, "proof %v", p)
	t.Logf("loss proof: %s: %v of %v dropped, took %v ms", p["loss_probe"], p["loss_dropped"], p["loss_sent"], p["took_ms"])
	for _, id := range h.env.AllNodes() {
		l, _ := h.env.ListLossRules(ctx, id)
		q, _ := h.env.ListQdiscs(ctx, id)
		wantRules := map[int32]int{0: 2, 1: 1, 2: 1}[id]
		must(t, len(l) == wantRules && len(q) == 0, "node %d: loss rules %v, qdiscs %v", id, l, q)
	}
	// Replication goes on through the loss: TCP retransmits.
	begin := time.Now()
	h.produce(500, "lossy", false)
	h.until(isr(0, 1, 2), 30*time.Second)
	out, _ := h.c.Exec(ctx, 0, "iptables", "-w", "5", "-S", "-v")
	t.Logf("500 acks=all records through the loss in %s; broker 0's rules:\n%s", since(begin), out)

	// heal partition is not netem's heal.
	h.heal(histories.FPartition)
	l, _ := h.env.ListLossRules(ctx, 0)
	must(t, len(l) == 2, "heal partition removed loss rules: left %v", l)
	h.heal(histories.FNetem)
	ev, hv, _ := completion(h.nemesisOps(), histories.FHeal)
	must(t, ev.Type == histories.OK && fmt.Sprint(hv.Details["loss_rules_removed"]) == "4", "heal netem %s %v", ev.Type, hv.Details)
	sameNet(h, before, "after heal netem (loss)")
	for _, id := range h.env.AllNodes() {
		must(t, iptablesSave(h, id) == saved[id], "node %d iptables-save differs after the heal:\nbefore:\n%s\nafter:\n%s", id, saved[id], iptablesSave(h, id))
		l, _ := h.env.ListLossRules(ctx, id)
		must(t, len(l) == 0, "node %d loss rules left %v", id, l)
	}
	if err := (&nemesis.Runner{Env: h.env}).FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}

// ip is node id's address.
func ip(h *harness, id int32) string {
	n, _ := h.c.Node(id)
	return n.IP
}
