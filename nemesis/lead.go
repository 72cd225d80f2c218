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
		err := e.adminCall(ctx, func(ctx context.Context) error {
			return e.Admin.ReorderReplicas(ctx, topic, p, orders[p])
		})
		if err != nil {
			return nil, err
		}
	}
	// The controller handles the election after the reorder it committed,
	// so the new first replica is the preferred one.
	err := e.adminCall(ctx, func(ctx context.Context) error {
		return e.Admin.ElectLeaders(ctx, topic, ids, false)
	})
	if err != nil {
		return nil, err
	}
	want := map[int32]int32{}
	for _, p := range ids {
		want[p] = to
	}
	after, _ := e.leaders(ctx, topic, ids, want)
	for _, p := range ids {
		if l := after[histories.PartitionKey(p)]; l != to {
			return after, fmt.Errorf("%s: %s-%d is led by %d after the election, not %d", op, topic, p, l, to)
		}
	}
	return after, nil
}
