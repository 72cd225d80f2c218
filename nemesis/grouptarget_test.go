package nemesis

import (
	"context"
	"testing"

	"github.com/kchaos/kchaos/cluster/admin"
)

// TestResolveGroupCoordinator: the group roles read the __consumer_offsets
// partition Kafka maps the group id to ("g2" is partition 43 of 50, 0 of 3).
func TestResolveGroupCoordinator(t *testing.T) {
	state := func(n int, owner int32, leader int32) []admin.PartitionState {
		out := make([]admin.PartitionState, n)
		for i := range out {
			out[i] = admin.PartitionState{Partition: int32(i), Leader: 2, Replicas: []int32{2, 0}}
		}
		if int(owner) < n {
			out[owner] = admin.PartitionState{Partition: owner, Leader: leader, Replicas: []int32{leader, 1}}
			if leader < 0 {
				out[owner].Replicas = []int32{0, 1}
			}
		}
		return out
	}
	for _, tc := range []struct {
		name, group, role string
		parts             []admin.PartitionState
		want, err         string
	}{
		{"coordinator of 50", "g2", RoleGroupCoordinator, state(50, 43, 0), "[0]", ""},
		{"its followers", "g2", RoleGroupCoordinatorFollowers, state(50, 43, 0), "[1]", ""},
		{"coordinator of 3", "g2", RoleGroupCoordinator, state(3, 0, 0), "[0]", ""},
		{"offline", "g2", RoleGroupCoordinator, state(3, 0, -1), "", "is offline: no leader"},
		{"no group", "", RoleGroupCoordinator, state(3, 0, 0), "", "no consumer group"},
		{"not created yet", "g2", RoleGroupCoordinator, nil, "", "has no partition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.GroupID = tc.group
			a.GroupState = tc.parts
			got, err := env.Resolve(context.Background(), &Target{Role: tc.role})
			wantResolved(t, got, err, tc.want, tc.err)
		})
	}
}
