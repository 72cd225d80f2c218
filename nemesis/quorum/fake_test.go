package quorum

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake):
// controller 1000 and brokers 0, 1 and 2 whose processes stop and start.
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

// fakeAdmin serves what the room's kinds ask of the admin API: partition
// t-0 (led by broker 0, every broker in sync), the live brokers (the fake
// cluster's running, unpaused ones), the quorum, topic configs, elections
// and replica reorders, each recorded for the tests. With simulate on, it
// derives the partition's leader and ISR from the cluster as Kafka would,
// only at once: a leader that is not live leaves the partition offline
// until it returns, and the ISR is the leader plus the live replicas. It
// is the seam's (nemesis/fake_test.go) without what only other faults use
// (transactions, coordinators' topics, link cuts).
type fakeAdmin struct {
	mu        sync.Mutex
	c         *fakeCluster
	parts     []admin.PartitionState
	simulate  bool
	last      int32 // the leader before the partition went offline
	configs   map[string]*string
	configOf  string   // the topic of the last SetTopicConfig
	elections []string // ElectLeaders calls
	reorders  []string // ReorderReplicas calls
	// quorum, when set, is what Quorum answers.
	quorum *histories.QuorumValue
}

var _ nemesis.Admin = (*fakeAdmin)(nil)

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, configs: map[string]*string{}, last: -1,
		parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
			Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) {
	c := newFakeCluster()
	a := newFakeAdmin(c)
	return &nemesis.Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// newQuorumEnv is the fake env with three controllers (1000-1002) and the
// quorum q.
func newQuorumEnv(q *histories.QuorumValue) (*nemesis.Env, *fakeCluster, *fakeAdmin) {
	env, c, a := newFakeEnv()
	for i := int32(1); i < 3; i++ {
		id := cluster.ControllerIDBase + i
		c.Nodes[id] = cluster.Node{ID: id, Role: cluster.RoleController, IP: fmt.Sprintf("10.9.0.%d", 10+i)}
		c.States[id] = cluster.NodeState{Running: true}
	}
	a.quorum = q
	return env, c, a
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

func (a *fakeAdmin) SetTopicConfig(_ context.Context, topic, key string, value *string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.configs[key] = value
	a.configOf = topic
	return nil
}

// ElectLeadersVia is ElectLeaders; via must name a running broker.
func (a *fakeAdmin) ElectLeadersVia(ctx context.Context, _ int32, topic string, partitions []int32, unclean bool) error {
	return a.ElectLeaders(ctx, topic, partitions, unclean)
}

// ElectLeaders elects, on the workload topic, the first live replica
// (unclean) or the first live one in the ISR (preferred: after a reorder,
// the new first replica).
func (a *fakeAdmin) ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) error {
	live, _ := a.LiveBrokers(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.elections = append(a.elections, fmt.Sprintf("%s %v unclean=%t", topic, partitions, unclean))
	for i, p := range a.parts {
		for _, r := range p.Replicas {
			if slices.Contains(live, r) && (unclean || slices.Contains(p.ISR, r)) {
				a.parts[i].Leader = r
				a.parts[i].ISR = []int32{r}
				a.last = r
				break
			}
		}
	}
	return nil
}

// ReorderReplicas reorders a partition's replicas of the workload topic;
// the set must stay the same.
func (a *fakeAdmin) ReorderReplicas(_ context.Context, topic string, partition int32, replicas []int32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, p := range a.parts {
		if p.Partition == partition {
			if !slices.Equal(slices.Sorted(slices.Values(p.Replicas)), slices.Sorted(slices.Values(replicas))) {
				return fmt.Errorf("fake: %s-%d: %v is not a reorder of %v", topic, partition, replicas, p.Replicas)
			}
			a.parts[i].Replicas = slices.Clone(replicas)
			a.reorders = append(a.reorders, fmt.Sprintf("%s-%d %v", topic, partition, replicas))
			return nil
		}
	}
	return fmt.Errorf("fake: %s has no partition %d", topic, partition)
}

// The rest of the admin API: no kind of this room calls it.
func (a *fakeAdmin) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	return 0, nil
}
func (a *fakeAdmin) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	return 0, nil
}
func (a *fakeAdmin) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	return nil, nil
}
func (a *fakeAdmin) AbortTxn(context.Context, string, int32, histories.OpenTxn) error { return nil }

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
	f := newFakeCluster()
	for _, n := range []cluster.Nodes{f, &upgradingCluster{fakeCluster: f}} {
		if err := cluster.CheckCapabilities(n); err != nil {
			t.Error(err)
		}
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

func nodes0(id int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{id}}
}

func caps(cs ...cluster.Capability) cluster.Caps { return cluster.NewCaps(cs...) }

// summary is the history reading the tests share (nemesis/nemesisfake).
var summary = nemesisfake.Summary
