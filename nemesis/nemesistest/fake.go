package nemesistest

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// The shared fake admin is one the faults can use.
var _ nemesis.Admin = (*nemesisfake.Admin)(nil)

// NewEnv is an Env on a new in-memory cluster (controller 1000, brokers
// 0, 1 and 2) and its fake admin, for workload topic t.
func NewEnv() (*nemesis.Env, *nemesisfake.Cluster, *nemesisfake.Admin) {
	c := nemesisfake.NewCluster()
	a := nemesisfake.NewAdmin(c)
	return &nemesis.Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// NewQuorumEnv is NewEnv with three controllers (1000-1002) and the
// admin answering the quorum q.
func NewQuorumEnv(q *histories.QuorumValue) (*nemesis.Env, *nemesisfake.Cluster, *nemesisfake.Admin) {
	env, c, a := NewEnv()
	c.AddControllers(3)
	a.FixedQuorum = q
	return env, c, a
}

// Recorded runs fn with an env from NewEnv that records to a history
// (its admin deriving the leader and ISR from the cluster if simulate),
// and returns the nemesis ops it recorded, each an invoke then its
// completion.
func Recorded(t *testing.T, simulate bool, fn func(env *nemesis.Env, c *nemesisfake.Cluster, a *nemesisfake.Admin)) []histories.Event {
	t.Helper()
	env, c, a := NewEnv()
	a.Simulate = simulate
	return nemesisfake.Record(t, func(rec *histories.Recorder) {
		env.Recorder = rec
		fn(env, c, a)
	})
}

// KindsRegisteredTogether fails t unless a room's kinds are registered
// (nemesis.Kinds) together and in the room's order, and returns where
// they start in the registry (-1 where they are not together).
func KindsRegisteredTogether(t *testing.T, kinds ...nemesis.Kind) int {
	t.Helper()
	var names, want []string
	for _, k := range nemesis.Kinds() {
		names = append(names, k.Name)
	}
	for _, k := range kinds {
		want = append(want, k.Name)
	}
	i := slices.Index(names, want[0])
	if i < 0 || i+len(want) > len(names) || !slices.Equal(names[i:i+len(want)], want) {
		t.Errorf("registered: %v; want %v together, in that order", names, want)
		return -1
	}
	return i
}

// NotDrawn fails t unless no kind of kinds is drawn by a random schedule
// (so that no seed's draws change).
func NotDrawn(t *testing.T, kinds ...nemesis.Kind) {
	t.Helper()
	for _, k := range kinds {
		if k.Draw != nemesis.NotDrawn {
			t.Errorf("%s: draw %+v, want NotDrawn", k.Name, k.Draw)
		}
	}
}

// DrawRank fails t unless k is drawn by a random schedule at rank (the
// rank it had in the seam, so that a seed replays the same draws).
func DrawRank(t *testing.T, k nemesis.Kind, rank int) {
	t.Helper()
	if k.Draw == nil || k.Draw.Rank != rank {
		t.Errorf("%s: draw %+v, want rank %d", k.Name, k.Draw, rank)
	}
}
