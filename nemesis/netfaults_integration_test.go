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
	h.topic("nf", []int32{0, 1, 2}, nil)
	h.produce(100, "a", false)
	h.until(isr(0, 1, 2), 30*time.Second)
	ctx := context.Background()
	before := netState(h)

	// Rate on the leader's replication links.
	f, p, v := injectFault(h, nemesis.Step{Fault: nemesis.FNetem, Shape: nemesis.ShapeLeaderFollowers,
		Target: &nemesis.Target{Partition: 0}, Netem: &nemesis.NetemSpec{Rate: "1mbit"}})
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
	h.heal(nemesis.FNetem)
	sameNet(h, before, "after heal netem")
	reprove(h, f, "the kernel does not show class ca05:1")

	// Rate on the leader's links to the client side.
	f, p, _ = injectFault(h, nemesis.Step{Fault: nemesis.FNetem, Shape: nemesis.ShapeClients,
		Target: &nemesis.Target{Role: nemesis.RoleLeader}, Netem: &nemesis.NetemSpec{Rate: "2mbit"}})
	must(t, strings.HasPrefix(fmt.Sprint(p["link"]), "host->"), "client link probe %v", p["link"])
	h.heal(nemesis.HealAll)
	sameNet(h, before, "after the clients netem's heal")

	// Delay: the kernel decides.
	has, msg := kernelHasNetem(h)
	t.Logf("kernel has sch_netem: %v (%s)", has, msg)
	s := nemesis.Schedule{Steps: []nemesis.Step{
		{Fault: nemesis.FNetem, Shape: nemesis.ShapeIsolate, Target: nodes(2),
			Netem: &nemesis.NetemSpec{Delay: nemesis.Duration(100 * time.Millisecond), Jitter: nemesis.Duration(10 * time.Millisecond)}},
		{Wait: nemesis.Duration(time.Second)},
	}}
	err := (&nemesis.Runner{Env: h.env, HealTimeout: time.Minute}).Run(ctx, s)
	ev, v, _ := completion(h.nemesisOps(), nemesis.FNetem)
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
	f, p, v = injectFault(h, nemesis.Step{Fault: nemesis.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
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
	h.heal(nemesis.FPartition)
	sameNet(h, before, "after heal partition (client cut)")
	reprove(h, f, "still reaches broker 0")

	// Partition, pause, kill.
	f, p, _ = injectFault(h, nemesis.Step{Fault: nemesis.FPartition, Target: nodes(2)})
	// Node 2 is cut from all (no control there); each other node from it.
	must(t, fmt.Sprint(p["cut"]) == "[0->2 dropped 1->2 dropped 2->0 dropped 1000->2 dropped]" &&
		fmt.Sprint(p["control"]) == "[0->1000 open 1->1000 open 1000->0 open]", "partition proof %v", p)
	h.heal(nemesis.FPartition)
	sameNet(h, before, "after heal partition")
	reprove(h, f, "still reaches cut peer")

	f, p, _ = injectFault(h, nemesis.Step{Fault: nemesis.FPause, Target: nodes(1)})
	must(t, strings.Contains(fmt.Sprint(p["frozen"]), "accepts TCP but no answer"), "pause proof %v", p)
	h.heal(nemesis.FPause)
	reprove(h, f, "is not paused")

	f, p, _ = injectFault(h, nemesis.Step{Fault: nemesis.FKill, Target: nodes(2)})
	must(t, strings.Contains(fmt.Sprint(p["stopped"]), "2: not running"), "kill proof %v", p)
	h.heal(nemesis.FKill)
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
