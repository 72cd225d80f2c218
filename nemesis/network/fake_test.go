package network

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake):
// nodes, their iptables and the network beyond it.
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

// fakeAdmin serves one partition's state, the live brokers (the fake
// cluster's running, unpaused brokers) and the quorum: what the link
// faults' targets and shapes read. With simulate on, it derives the
// partition's leader and ISR from the cluster as Kafka would, only at
// once: a leader that is not live leaves the partition offline until it
// returns (no unclean election), and the ISR is the leader plus the live
// replicas that have no kchaos rule cutting them from it. It is the
// seam's (nemesis/fake_test.go) without what only other faults use
// (configs, elections, transactions, coordinators): those answer nothing.
type fakeAdmin struct {
	mu       sync.Mutex
	c        *fakeCluster
	parts    []admin.PartitionState
	simulate bool
	last     int32 // the leader before the partition went offline
	err      error // returned by Describe when set
	// quorum, when set, is what Quorum answers.
	quorum *histories.QuorumValue
}

var _ nemesis.Admin = (*fakeAdmin)(nil)

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, last: -1,
		parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
			Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func (a *fakeAdmin) derive(ctx context.Context) {
	live, _ := a.LiveBrokers(ctx)
	p := &a.parts[0]
	if p.Leader >= 0 && !slices.Contains(live, p.Leader) {
		a.last, p.Leader, p.ISR = p.Leader, -1, []int32{p.Leader}
	}
	if p.Leader < 0 && a.last >= 0 && slices.Contains(live, a.last) {
		p.Leader = a.last
	}
	if p.Leader < 0 {
		return
	}
	isr := []int32{p.Leader}
	for _, r := range p.Replicas {
		if r != p.Leader && slices.Contains(live, r) && !a.c.CutOff(p.Leader, r) {
			isr = append(isr, r)
		}
	}
	slices.Sort(isr)
	p.ISR = isr
}

func (a *fakeAdmin) Describe(ctx context.Context, topic string) ([]admin.PartitionState, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return nil, a.err
	}
	if topic != "t" {
		return nil, nil
	}
	if a.simulate {
		a.derive(ctx)
	}
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

// ActiveController is controller 1000, which leads the quorum unless
// quorum says otherwise.
func (a *fakeAdmin) ActiveController(context.Context) (int32, error) { return 1000, nil }

// Quorum is q when set, else the fake cluster's controllers as voters led
// by 1000 and its brokers as observers.
func (a *fakeAdmin) Quorum(context.Context) (histories.QuorumValue, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.quorum != nil {
		return *a.quorum, nil
	}
	q := histories.QuorumValue{LeaderID: 1000, LeaderEpoch: 1}
	for _, n := range a.c.Controllers() {
		q.Voters = append(q.Voters, histories.QuorumReplica{ID: n.ID})
	}
	for _, n := range a.c.Brokers() {
		q.Observers = append(q.Observers, histories.QuorumReplica{ID: n.ID})
	}
	return q, nil
}

// The rest of the admin API: no link fault calls it.
func (a *fakeAdmin) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	return 0, nil
}
func (a *fakeAdmin) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	return 0, nil
}
func (a *fakeAdmin) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	return nil, nil
}
func (a *fakeAdmin) AbortTxn(context.Context, string, int32, histories.OpenTxn) error    { return nil }
func (a *fakeAdmin) SetTopicConfig(context.Context, string, string, *string) error       { return nil }
func (a *fakeAdmin) ReorderReplicas(context.Context, string, int32, []int32) error       { return nil }
func (a *fakeAdmin) ElectLeaders(context.Context, string, []int32, bool) error           { return nil }
func (a *fakeAdmin) ElectLeadersVia(context.Context, int32, string, []int32, bool) error { return nil }

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
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// recorded runs fn with an env on the fake cluster that records to a
// history, and returns the nemesis ops it recorded.
func recorded(t *testing.T, fn func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	env, c, a := newFakeEnv()
	a.simulate = true
	var buf bytes.Buffer
	env.Recorder = histories.NewRecorder(&buf)
	fn(env, c, a)
	if err := env.Recorder.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(evs); i += 2 {
		if evs[i].Process != histories.NemesisProcess || evs[i].Type != histories.Invoke ||
			i+1 >= len(evs) || evs[i+1].Type == histories.Invoke || evs[i+1].F != evs[i].F {
			t.Fatalf("event %d: want nemesis invoke then its completion: %+v", i, evs[i:])
		}
	}
	return evs
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
