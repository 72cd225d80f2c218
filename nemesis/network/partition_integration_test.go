//go:build integration

package network_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
	"github.com/kchaos/kchaos/nemesis/network"
)

// TestPartitionLeaderFollowers: a partition's leader cut off from its
// followers shrinks the ISR to the leader alone while the followers keep
// running (and stay unfenced: they still reach the controller); the heal
// brings them back into the ISR and leaves no kchaos rule.
func TestPartitionLeaderFollowers(t *testing.T) {
	h := nt.Start(t, nil)
	h.Replicated("lf", 200)
	h.Inject(nemesis.Step{Fault: histories.FPartition,
		Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &network.PartitionParams{Shape: nemesis.ShapeLeaderFollowers}})
	h.ProduceLeaderAck(10, "lag")
	took := h.Until(nt.ISR(0), 30*time.Second)
	t.Logf("ISR [0 1 2] -> [0] %s after cutting leader 0 from its followers and writing (replica.lag.time.max.ms 4s)", took)
	for _, f := range []int32{1, 2} {
		nt.Must(t, h.Running(f), "follower %d does not run", f)
	}
	live, err := h.Adm.LiveBrokers(context.Background())
	nt.Must(t, err == nil && slices.Equal(live, []int32{0, 1, 2}), "live brokers %v (%v): followers fenced", live, err)
	p, _ := h.Adm.Describe(context.Background(), "lf")
	nt.Must(t, p[0].Leader == 0, "leader moved: %+v", p[0])
	// The leader alone acks writes now (min.insync.replicas 1).
	h.Produce(50, "alone", false)
	nt.Must(t, h.Leo(0) == 260, "leader log end %d, want 260", h.Leo(0))

	h.Heal(histories.FPartition)
	h.NoRules()
	took = h.Until(nt.ISR(0, 1, 2), 60*time.Second)
	t.Logf("ISR back to [0 1 2] %s after the heal", took)
	ops := h.NemesisOps()
	_, v, _ := nt.Completion(ops, histories.FPartition)
	t.Logf("recorded partition: nodes %v details %v", v.Nodes, v.Details)
	nt.Must(t, fmt.Sprint(v.Details["grudge"]) == "map[0:[1 2] 1:[0] 2:[0]]", "grudge %v", v.Details["grudge"])
}

// probe reports whether node from can open a TCP connection to node to's
// listener. A dropped SYN hangs until the timeout; both count as closed.
func probe(h *nt.Harness, from, to cluster.Node) bool {
	cmd := fmt.Sprintf("echo > /dev/tcp/%s/%d", to.IP, port(to))
	_, err := h.C.Exec(context.Background(), from.ID, "timeout", "2", "bash", "-c", cmd)
	return err == nil
}

func port(n cluster.Node) int {
	if n.Role == cluster.RoleController {
		return cluster.ControllerPort
	}
	return cluster.BrokerPort
}

// connectivity probes every ordered pair of nodes, in parallel, and returns
// the set of "from->to" pairs that are blocked.
func connectivity(h *nt.Harness) map[string]bool {
	nodes := append(h.C.Controllers(), h.C.Brokers()...)
	blocked := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, a := range nodes {
		for _, b := range nodes {
			if a.ID == b.ID {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if !probe(h, a, b) {
					mu.Lock()
					blocked[fmt.Sprintf("%d->%d", a.ID, b.ID)] = true
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	return blocked
}

// TestPartitionRacksAndFromController: a rack partition blocks exactly the
// traffic between the rack groups (a: 0 1, b: 2), both ways, and nothing
// else (the controller, in no rack, reaches everyone); a broker cut off
// from the controller is fenced; after each heal every probe passes and
// no kchaos rule remains.
func TestPartitionRacksAndFromController(t *testing.T) {
	h := nt.Start(t, nil)
	h.Topic("rk", []int32{0, 1, 2}, nil)
	nt.Must(t, len(connectivity(h)) == 0, "blocked before any fault: %v", connectivity(h))

	h.Inject(nemesis.Step{Fault: histories.FPartition, Params: &network.PartitionParams{Shape: nemesis.ShapeRacks}})
	begin := time.Now()
	got := connectivity(h)
	want := map[string]bool{"0->2": true, "1->2": true, "2->0": true, "2->1": true}
	nt.Must(t, fmt.Sprint(got) == fmt.Sprint(want), "blocked pairs %v, want exactly %v", got, want)
	t.Logf("rack partition: blocked %v; the other 8 pairs connect (probes took %s)", slices.Sorted(maps.Keys(got)), nt.Since(begin))
	h.ProduceLeaderAck(10, "lag")
	took := h.Until(nt.ISR(0, 1), 30*time.Second)
	t.Logf("ISR -> [0 1] %s after a write: broker 2 (rack b) cannot fetch from leader 0 (rack a)", took)
	h.Heal(histories.FPartition)
	h.NoRules()
	nt.Must(t, len(connectivity(h)) == 0, "blocked after heal: %v", connectivity(h))

	begin = time.Now()
	h.Inject(nemesis.Step{Fault: histories.FPartition,
		Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{2}}, Params: &network.PartitionParams{Shape: nemesis.ShapeFromController}})
	took = h.Until(nemesis.Condition{Fenced: []int32{2}}, 30*time.Second)
	t.Logf("broker 2 fenced %s after being cut from the controller (broker.session.timeout.ms 3s)", took)
	got = connectivity(h)
	want = map[string]bool{"2->1000": true, "1000->2": true}
	nt.Must(t, fmt.Sprint(got) == fmt.Sprint(want), "blocked pairs %v, want exactly %v", got, want)
	h.Heal(histories.FPartition)
	h.NoRules()
	took = h.Until(nemesis.Condition{Live: []int32{0, 1, 2}}, 60*time.Second)
	t.Logf("broker 2 unfenced %s after the heal", took)
	if err := (&nemesis.Runner{Env: h.Env}).FinalHeal(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// nodes is a target of role nodes (the seam's process_integration_test.go).
func nodes(ids ...int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: ids}
}
