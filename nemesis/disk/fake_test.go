package disk

import (
	"context"
	"slices"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the unit tests' in-memory cluster the seam's and the
// network room's tests share (nemesis/nemesisfake): controller 1000 and
// brokers 0, 1 and 2 whose processes die and start, and log dirs on the
// local disk for the power loss (LogDirs; tests set them). Its disks are
// diskCluster's, so that a test can take them away.
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

// fakeAdmin answers what the disk faults ask: partition t-0, led by
// broker 0 with every broker in sync, the running brokers, the active
// controller. Any other admin call panics (the nil nemesis.Admin).
type fakeAdmin struct {
	nemesis.Admin
	c     *fakeCluster
	parts []admin.PartitionState
}

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
		Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func (a *fakeAdmin) Describe(context.Context, string) ([]admin.PartitionState, error) {
	return slices.Clone(a.parts), nil
}

func (a *fakeAdmin) LiveBrokers(ctx context.Context) ([]int32, error) {
	var out []int32
	for _, b := range a.c.Brokers() {
		if st, _ := a.c.State(ctx, b.ID); st.Running && !st.Paused {
			out = append(out, b.ID)
		}
	}
	return out, nil
}

func (a *fakeAdmin) ActiveController(context.Context) (int32, error) { return 1000, nil }

func (a *fakeAdmin) Quorum(context.Context) (histories.QuorumValue, error) {
	return histories.QuorumValue{LeaderID: 1000, LeaderEpoch: 1, Voters: []histories.QuorumReplica{{ID: 1000}}}, nil
}

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) {
	c := newFakeCluster()
	a := newFakeAdmin(c)
	return &nemesis.Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// TestFakeCapabilitiesMatchCode: the fakes declare what they implement,
// as the real backends must (cluster.CheckCapabilities).
func TestFakeCapabilitiesMatchCode(t *testing.T) {
	f := newFakeCluster()
	for _, n := range []cluster.Nodes{f, &diskCluster{fakeCluster: f}} {
		if err := cluster.CheckCapabilities(n); err != nil {
			t.Error(err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
