package clients

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake).
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) {
	c := newFakeCluster()
	a := newFakeAdmin(c)
	return &nemesis.Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// fakeAdmin answers what the room's faults read and change through the
// admin API: the workload topic's one partition, the coordinators'
// topics (__transaction_state, __consumer_offsets) with their reorders
// and preferred elections (move-coordinator), and partition 0's offsets
// and open transactions with their aborts (abort-hanging). It is the
// seam's (nemesis/fake_test.go) without what only node faults use (the
// leader derived from the cluster, configs, unclean elections, the
// quorum): no fault of this room touches a node, so the workload topic's
// leader stays where it is.
type fakeAdmin struct {
	mu    sync.Mutex
	c     *fakeCluster
	parts []admin.PartitionState
	hw    int64
	// txnState is __transaction_state's partitions (Describe of that topic).
	txnState []admin.PartitionState
	// groupState is __consumer_offsets' partitions.
	groupState []admin.PartitionState
	reorders   []string // ReorderReplicas calls
	// lso and open are partition 0's last stable offset and the
	// transactions its leader holds open (abort-hanging); aborts are the
	// AbortTxn calls, each of which ends its transaction (lso = hw) unless
	// abortDeaf.
	lso       *int64
	open      []histories.OpenTxn
	aborts    []string
	abortDeaf bool
}

var _ nemesis.Admin = (*fakeAdmin)(nil)

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
		Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func (a *fakeAdmin) Describe(_ context.Context, topic string) ([]admin.PartitionState, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch topic {
	case admin.TransactionStateTopic:
		return slices.Clone(a.txnState), nil
	case admin.ConsumerOffsetsTopic:
		return slices.Clone(a.groupState), nil
	}
	return slices.Clone(a.parts), nil
}

func (a *fakeAdmin) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lso == nil {
		return a.hw, nil
	}
	return *a.lso, nil
}

func (a *fakeAdmin) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hw, nil
}

func (a *fakeAdmin) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.open), nil
}

func (a *fakeAdmin) AbortTxn(_ context.Context, topic string, p int32, t histories.OpenTxn) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.aborts = append(a.aborts, fmt.Sprintf("%s-%d pid %d epoch %d coord %d", topic, p, t.ProducerID, t.ProducerEpoch, t.CoordinatorEpoch))
	if !a.abortDeaf {
		hw := a.hw
		a.lso = &hw
		a.open = nil
	}
	return nil
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

// coordinator is the partitions of a coordinator's topic (nil: another
// topic). The caller holds a.mu.
func (a *fakeAdmin) coordinator(topic string) []admin.PartitionState {
	switch topic {
	case admin.TransactionStateTopic:
		return a.txnState
	case admin.ConsumerOffsetsTopic:
		return a.groupState
	}
	return nil
}

// ReorderReplicas reorders a coordinator topic partition's replicas; the
// set must stay the same.
func (a *fakeAdmin) ReorderReplicas(_ context.Context, topic string, partition int32, replicas []int32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	parts := a.coordinator(topic)
	for i, p := range parts {
		if p.Partition == partition {
			if !slices.Equal(slices.Sorted(slices.Values(p.Replicas)), slices.Sorted(slices.Values(replicas))) {
				return fmt.Errorf("fake: %s-%d: %v is not a reorder of %v", topic, partition, replicas, p.Replicas)
			}
			parts[i].Replicas = slices.Clone(replicas)
			a.reorders = append(a.reorders, fmt.Sprintf("%s-%d %v", topic, partition, replicas))
			return nil
		}
	}
	return fmt.Errorf("fake: %s has no partition %d", topic, partition)
}

// ElectLeaders runs a preferred election of a coordinator topic's
// partitions named: the first replica leads where it is in the ISR.
func (a *fakeAdmin) ElectLeaders(_ context.Context, topic string, partitions []int32, unclean bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	coord := a.coordinator(topic)
	if coord == nil || unclean {
		return fmt.Errorf("fake: %s: only preferred elections of a coordinator's topic", topic)
	}
	for i, p := range coord {
		if slices.Contains(partitions, p.Partition) && slices.Contains(p.ISR, p.Replicas[0]) {
			coord[i].Leader = p.Replicas[0]
		}
	}
	return nil
}

// The rest of the admin API: no fault of this room calls it.
func (a *fakeAdmin) ActiveController(context.Context) (int32, error) { return 1000, nil }
func (a *fakeAdmin) Quorum(context.Context) (histories.QuorumValue, error) {
	return histories.QuorumValue{}, fmt.Errorf("fake: no quorum")
}
func (a *fakeAdmin) SetTopicConfig(context.Context, string, string, *string) error { return nil }
func (a *fakeAdmin) ElectLeadersVia(context.Context, int32, string, []int32, bool) error {
	return fmt.Errorf("fake: no elections through a broker")
}

// recorded runs fn with an env on the fake cluster that records to a
// history, and returns the nemesis ops it recorded (each an invoke then
// its completion).
func recorded(t *testing.T, fn func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	env, c, a := newFakeEnv()
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

// wantErr fails t unless err contains want, or, with want "", unless err
// is nil.
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

// The history readings the tests share (nemesis/nemesisfake).
var (
	summary     = nemesisfake.Summary
	completions = nemesisfake.Completions
)
