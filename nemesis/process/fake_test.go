package process

import (
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// fakeCluster is the unit tests' in-memory cluster the seam's and the
// other rooms' tests share (nemesis/nemesisfake): controller 1000 and
// brokers 0, 1 and 2 whose processes pause, die and start, and whose
// listeners answer the proofs' dials from the kchaos host.
type fakeCluster = nemesisfake.Cluster

// newFakeEnv is an Env on a new fake cluster with the shared fake admin
// (nemesis/nemesisfake), which answers what the process faults read:
// partition t-0, led by broker 0 with every broker in sync (a target's
// role), and the live brokers, the running and unpaused ones (a
// restart's wait).
func newFakeEnv() (*nemesis.Env, *fakeCluster) {
	env, c, _ := nemesistest.NewEnv()
	return env, c
}
