package nemesis

import (
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake):
// nodes, their iptables and the network beyond it.
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

// fakeAdmin is the shared fake admin client over the fake cluster
// (nemesis/nemesisfake: admin.go), the one every room's tests use too.
// The rooms build their Envs with nemesis/nemesistest, which imports this
// package and so is closed to its in-package tests: they build theirs
// here.
type fakeAdmin = nemesisfake.Admin

var _ Admin = (*fakeAdmin)(nil)

func newFakeEnv() (*Env, *fakeCluster, *fakeAdmin) {
	c := newFakeCluster()
	a := nemesisfake.NewAdmin(c)
	return &Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// TestFakeCapabilitiesMatchCode: the fakes declare what they implement,
// as the real backends must (cluster.CheckCapabilities); the disk room's
// fakes are checked in nemesis/disk, the upgrading one in nemesis/quorum.
func TestFakeCapabilitiesMatchCode(t *testing.T) {
	f := newFakeCluster()
	for _, n := range []cluster.Nodes{f} {
		if err := cluster.CheckCapabilities(n); err != nil {
			t.Error(err)
		}
	}
}

// The shared fake dials from the host as a backend's Dialer does.
var _ Dialer = (*fakeCluster)(nil)

// The history readings and the fake quorum the tests share
// (nemesis/nemesisfake).
var (
	summary     = nemesisfake.Summary
	completions = nemesisfake.Completions
	proofOf     = nemesisfake.ProofOf
	quorum      = nemesisfake.Quorum
)
