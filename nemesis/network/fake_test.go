package network

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake):
// nodes, their iptables and the network beyond it.
type fakeCluster = nemesisfake.Cluster

// fakeAdmin is the shared fake admin (nemesis/nemesisfake): what the
// link faults' targets and shapes read is partition t-0, the live
// brokers (the fake cluster's running, unpaused ones) and the quorum;
// with Simulate on (recorded), it derives the partition's leader and ISR
// from the cluster, the ISR less the replicas a kchaos rule cuts from
// the leader.
type fakeAdmin = nemesisfake.Admin

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) { return nemesistest.NewEnv() }

// newQuorumEnv is the fake env with three controllers (1000-1002) and the
// quorum q.
var newQuorumEnv = nemesistest.NewQuorumEnv

// readers are the brokers the seam's state reads would ask, in its order
// (nemesis/state.go: readers, less the last answerer's preference): every
// running, unpaused broker no kind's AvoidReads skips, those it puts last
// after the others. The seam's own tests check that its reads follow
// these (TestReadersAvoid).
func readers(ctx context.Context, env *nemesis.Env) []int32 {
	skip, last := map[int32]bool{}, map[int32]bool{}
	for _, k := range nemesis.Kinds() {
		if k.AvoidReads != nil {
			s, l := k.AvoidReads(env)
			maps.Copy(skip, s)
			maps.Copy(last, l)
		}
	}
	var good, stale []int32
	for _, id := range env.BrokerIDs() {
		switch {
		case skip[id] || !env.RunsUnpaused(ctx, id):
		case last[id]:
			stale = append(stale, id)
		default:
			good = append(good, id)
		}
	}
	return append(good, stale...)
}

// brokers are the fake cluster's brokers, as the seam's plan tests name
// them.
var brokers = []int32{0, 1, 2}

// wantErr fails t unless err is nil when want is empty, or an error
// containing want otherwise (the seam's want_test.go).
var wantErr = nemesisfake.WantErr

// recorded runs fn with an env on the fake cluster that records to a
// history, its admin deriving the leader and ISR from the cluster, and
// returns the nemesis ops it recorded.
func recorded(t *testing.T, fn func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	return nemesistest.Recorded(t, true, fn)
}

// processStep is the process fault of st (resume, start: nemesis/process,
// linked by rooms_test.go), which the room's tests use to bring nodes
// back.
func processStep(t *testing.T, st nemesis.Step) nemesis.Fault {
	t.Helper()
	f, err := nemesis.NewFault(st)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkParse wants yaml to parse, or to fail with every error of want
// (the seam's schedule_test.go).
func checkParse(t *testing.T, yaml string, want []string) {
	t.Helper()
	_, err := nemesis.ParseSchedule([]byte(yaml))
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("want errors %q, got none", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// The history readings and the fake quorum the tests share
// (nemesis/nemesisfake).
var (
	summary     = nemesisfake.Summary
	completions = nemesisfake.Completions
	proofOf     = nemesisfake.ProofOf
	quorum      = nemesisfake.Quorum
)
