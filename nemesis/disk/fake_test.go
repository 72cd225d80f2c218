package disk

import (
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// fakeCluster is the unit tests' in-memory cluster the seam's and the
// network room's tests share (nemesis/nemesisfake): controller 1000 and
// brokers 0, 1 and 2 whose processes die and start, and log dirs on the
// local disk for the power loss (LogDirs; tests set them). Its disks are
// diskCluster's, so that a test can take them away.
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

// fakeAdmin is the shared fake admin (nemesis/nemesisfake): what the
// disk faults ask is partition t-0, led by broker 0 with every broker in
// sync, the running brokers, the active controller and the quorum, here
// controller 1000 alone (soleVoter).
type fakeAdmin = nemesisfake.Admin

func soleVoter(a *fakeAdmin) *fakeAdmin {
	a.FixedQuorum = &histories.QuorumValue{LeaderID: 1000, LeaderEpoch: 1, Voters: []histories.QuorumReplica{{ID: 1000}}}
	return a
}

func newFakeAdmin(c *fakeCluster) *fakeAdmin { return soleVoter(nemesisfake.NewAdmin(c)) }

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) {
	env, c, a := nemesistest.NewEnv()
	return env, c, soleVoter(a)
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
