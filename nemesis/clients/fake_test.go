package clients

import (
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake).
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

// fakeAdmin is the shared fake admin (nemesis/nemesisfake): what the
// room's faults read and change through the admin API is the workload
// topic's one partition, the coordinators' topics (TxnState, GroupState)
// with their reorders and preferred elections (move-coordinator), and
// partition 0's offsets and open transactions with their aborts
// (abort-hanging: HW, LSO, Open, Aborts, AbortDeaf). No fault of this
// room touches a node, so the workload topic's leader stays where it is.
type fakeAdmin = nemesisfake.Admin

// newFakeEnv is an Env on a new fake cluster and its fake admin.
var newFakeEnv = nemesistest.NewEnv

// recorded runs fn with an env on the fake cluster that records to a
// history, and returns the nemesis ops it recorded (each an invoke then
// its completion). The admin does not derive the leader from the
// cluster.
func recorded(t *testing.T, fn func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	return nemesistest.Recorded(t, false, fn)
}

// wantErr fails t unless err contains want, or, with want "", unless err
// is nil.
var wantErr = nemesisfake.WantErr

// The history readings the tests share (nemesis/nemesisfake).
var (
	summary     = nemesisfake.Summary
	completions = nemesisfake.Completions
)
