package nemesis

import (
	"context"
	"fmt"

	"github.com/kchaos/kchaos/cluster/admin"
)

// Target roles of the workload's consumer group: the leader of the
// __consumer_offsets partition that owns the group id (the group
// coordinator, where every commit is written) and that partition's other
// replicas. Read when the fault fires, like a leader role.
const (
	RoleGroupCoordinator          = "group-coordinator"
	RoleGroupCoordinatorFollowers = "group-coordinator-followers"
)

// groupCoordinator resolves the two group roles.
func (e *Env) groupCoordinator(ctx context.Context, role string) ([]int32, error) {
	if e.GroupID == "" {
		return nil, fmt.Errorf("role %s: the workload has no consumer group", role)
	}
	parts, err := e.State().Describe(ctx, admin.ConsumerOffsetsTopic)
	if err != nil {
		return nil, fmt.Errorf("role %s: %s: %w", role, admin.ConsumerOffsetsTopic, err)
	}
	want := admin.GroupPartition(e.GroupID, len(parts))
	for _, p := range parts {
		if p.Partition != want {
			continue
		}
		r := RoleLeader
		if role == RoleGroupCoordinatorFollowers {
			r = RoleFollowers
		}
		ids, err := partitionRole(p, r)
		if err != nil {
			return nil, fmt.Errorf("role %s: %s (owner of group %q): %w", role, admin.ConsumerOffsetsTopic, e.GroupID, err)
		}
		return ids, nil
	}
	return nil, fmt.Errorf("role %s: %s has no partition %d (owner of group %q; it has %d; has the group committed yet?)",
		role, admin.ConsumerOffsetsTopic, want, e.GroupID, len(parts))
}
