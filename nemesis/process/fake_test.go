package process

import (
	"context"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the unit tests' in-memory cluster the seam's and the
// other rooms' tests share (nemesis/nemesisfake): controller 1000 and
// brokers 0, 1 and 2 whose processes pause, die and start, and whose
// listeners answer the proofs' dials from the kchaos host.
type fakeCluster = nemesisfake.Cluster

// fakeAdmin answers what the process faults read: partition t-0, led by
// broker 0 with every broker in sync (a target's role), and the live
// brokers, the running and unpaused ones (a restart's wait). Any other
// admin call panics (the nil nemesis.Admin).
type fakeAdmin struct {
	nemesis.Admin
	c *fakeCluster
}

func (a *fakeAdmin) Describe(context.Context, string) ([]admin.PartitionState, error) {
	return []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
		Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}, nil
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

func newFakeEnv() (*nemesis.Env, *fakeCluster) {
	c := nemesisfake.NewCluster()
	return &nemesis.Env{Cluster: c, Admin: &fakeAdmin{c: c}, Topic: "t", Seed: 3}, c
}
