package nemesis

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// Lead reorders the replicas of topic's partitions (orders: the new
// order of those not led by to yet, every one checked beforehand, so
// that a refused move changes nothing), runs a preferred election of ids
// and checks that to leads each, as an operator does with
// kafka-reassign-partitions and kafka-leader-election. It returns the
// leaders after. It is the seam's because two kinds place leaders this
// way: move-leader (the workload topic's) and move-coordinator
// (nemesis/clients: a coordinator topic's); op names the caller in its
// errors.
func (e *Env) Lead(ctx context.Context, op, topic string, ids []int32, orders map[int32][]int32, to int32) (map[string]int32, error) {
	for _, p := range slices.Sorted(maps.Keys(orders)) {
		err := e.AdminCall(ctx, func(ctx context.Context) error {
			return e.Admin.ReorderReplicas(ctx, topic, p, orders[p])
		})
		if err != nil {
			return nil, err
		}
	}
	// The controller handles the election after the reorder it committed,
	// so the new first replica is the preferred one.
	err := e.AdminCall(ctx, func(ctx context.Context) error {
		return e.Admin.ElectLeaders(ctx, topic, ids, false)
	})
	if err != nil {
		return nil, err
	}
	want := map[int32]int32{}
	for _, p := range ids {
		want[p] = to
	}
	after, _ := e.Leaders(ctx, topic, ids, want)
	for _, p := range ids {
		if l := after[histories.PartitionKey(p)]; l != to {
			return after, fmt.Errorf("%s: %s-%d is led by %d after the election, not %d", op, topic, p, l, to)
		}
	}
	return after, nil
}

// Leaders reads the partitions' leaders just after an election, until each
// has one and each partition in want has that leader. The controller
// answers once its quorum committed the change; a broker's metadata cache
// follows a moment later (hundreds of milliseconds on a loaded machine), so
// one Describe may still show the old leader. The seam's because Lead and
// the elections of nemesis/quorum read them.
func (e *Env) Leaders(ctx context.Context, topic string, ids []int32, want map[int32]int32) (map[string]int32, []int32) {
	out := map[string]int32{}
	var nodes []int32
	for range 50 {
		parts, err := e.State().Describe(ctx, topic)
		if err == nil {
			all := true
			for _, p := range parts {
				if slices.Contains(ids, p.Partition) {
					out[histories.PartitionKey(p.Partition)] = p.Leader
					w, ok := want[p.Partition]
					all = all && p.Leader >= 0 && (!ok || p.Leader == w)
				}
			}
			if all {
				break
			}
		}
		if sleep(ctx, PollInterval) != nil {
			break
		}
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if l := out[k]; l >= 0 {
			nodes = append(nodes, l)
		}
	}
	return out, nodes
}
