package nemesis

import (
	"context"
	"fmt"
)

// RoleShareCoordinator is the share coordinator of the workload's share
// group for partition 0 of the topic: the leader of the
// __share_group_state partition that holds that share-partition's state
// (KIP-932), as FindCoordinator (key type SHARE, Kafka 4.2+) names it.
// Read when the fault fires, like a leader role.
const RoleShareCoordinator = "share-coordinator"

// ShareCoordinators is what the share-coordinator role needs of the admin
// client (*admin.Client implements it).
type ShareCoordinators interface {
	ShareCoordinator(ctx context.Context, group, topic string, partition int32) (int32, error)
}

// shareCoordinator resolves the share-coordinator role.
func (e *Env) shareCoordinator(ctx context.Context) ([]int32, error) {
	if e.ShareGroup == "" {
		return nil, fmt.Errorf("role %s: the workload has no share group", RoleShareCoordinator)
	}
	sc, ok := e.Admin.(ShareCoordinators)
	if !ok {
		return nil, fmt.Errorf("role %s: the admin client cannot find share coordinators", RoleShareCoordinator)
	}
	id, err := sc.ShareCoordinator(ctx, e.ShareGroup, e.Topic, 0)
	if err != nil {
		return nil, fmt.Errorf("role %s: %w", RoleShareCoordinator, err)
	}
	return []int32{id}, nil
}
