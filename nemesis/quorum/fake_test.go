package quorum

import (
	"context"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake):
// controller 1000 and brokers 0, 1 and 2 whose processes stop and start.
type fakeCluster = nemesisfake.Cluster

// fakeAdmin is the shared fake admin (nemesis/nemesisfake): what the
// room's kinds ask of the admin API is partition t-0 (led by broker 0,
// every broker in sync), the live brokers (the fake cluster's running,
// unpaused ones), the quorum, topic configs, elections and replica
// reorders, each recorded for the tests (ConfigOf, Elections, Reorders);
// with Simulate on (recorded), it derives the partition's leader and ISR
// from the cluster.
type fakeAdmin = nemesisfake.Admin

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) { return nemesistest.NewEnv() }

// newQuorumEnv is the fake env with three controllers (1000-1002) and the
// quorum q.
var newQuorumEnv = nemesistest.NewQuorumEnv

// shareAdmin is the fake admin that also finds share coordinators (role
// share-coordinator, which move-leader resolves in w3).
type shareAdmin struct {
	*fakeAdmin
	coord int32
}

func (a *shareAdmin) ShareCoordinator(context.Context, string, string, int32) (int32, error) {
	return a.coord, nil
}

// TestFakeCapabilitiesMatchCode: the fakes declare what they implement,
// as the real backends must (cluster.CheckCapabilities).
func TestFakeCapabilitiesMatchCode(t *testing.T) {
	f := nemesisfake.NewCluster()
	for _, n := range []cluster.Nodes{f, &upgradingCluster{fakeCluster: f}} {
		if err := cluster.CheckCapabilities(n); err != nil {
			t.Error(err)
		}
	}
}

// recorded runs fn with an env on the fake cluster that records to a
// history, its admin deriving the leader and ISR from the cluster, and
// returns the nemesis ops it recorded.
func recorded(t *testing.T, fn func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	return nemesistest.Recorded(t, true, fn)
}

// playStep runs a fault step as the seam's runner does (Runner.step): a
// Sequence (upgrade's one op per node) is played, any other fault
// injected as one op.
func playStep(ctx context.Context, env *nemesis.Env, st nemesis.Step) error {
	f, err := nemesis.NewFault(st)
	if err != nil {
		return err
	}
	if seq, ok := f.(nemesis.Sequence); ok {
		return seq.Play(ctx, env)
	}
	return env.Inject(ctx, f)
}

// wantErr fails t unless err is nil when want is empty, or an error
// containing want otherwise (the seam's want_test.go).
var wantErr = nemesisfake.WantErr

func nodes0(id int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{id}}
}

func caps(cs ...cluster.Capability) cluster.Caps { return cluster.NewCaps(cs...) }

// summary is the history reading the tests share (nemesis/nemesisfake).
var summary = nemesisfake.Summary
