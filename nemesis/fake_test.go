package nemesis

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// fakeCluster is the shared in-memory cluster (nemesis/nemesisfake):
// nodes, their iptables and the network beyond it.
type fakeCluster = nemesisfake.Cluster

func newFakeCluster() *fakeCluster { return nemesisfake.NewCluster() }

func newFakeEnv() (*Env, *fakeCluster, *fakeAdmin) {
	c := newFakeCluster()
	a := newFakeAdmin(c)
	return &Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// fakeAdmin serves one partition's state and the live brokers (the fake
// cluster's running, unpaused brokers). With simulate on, it derives the
// partition's leader and ISR from the cluster as Kafka would, only at once:
// a leader that is not live leaves the partition offline until it returns
// (no unclean election), and the ISR is the leader plus the live replicas
// that have no kchaos rule cutting them from it.
type fakeAdmin struct {
	mu         sync.Mutex
	c          *fakeCluster
	parts      []admin.PartitionState
	simulate   bool
	last       int32 // the leader before the partition went offline
	hw         int64
	err        error // returned by Describe when set
	configs    map[string]*string
	configOf   string // the topic of the last SetTopicConfig
	elections  []string
	electVia   []int32 // the brokers ElectLeadersVia named
	controller int32
	electErrs  []error // returned, one per call, before elections succeed
	liveCalls  int
	// txnState is __transaction_state's partitions (Describe of that topic).
	txnState []admin.PartitionState
	// groupState is __consumer_offsets' partitions, for the group roles.
	groupState []admin.PartitionState
	reorders   []string // ReorderReplicas calls
	// quorum, when set, is what Quorum answers.
	quorum *histories.QuorumValue
}

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, controller: 1000, configs: map[string]*string{}, last: -1,
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

func (a *fakeAdmin) set(p admin.PartitionState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.parts[0] = p
}

func (a *fakeAdmin) Describe(ctx context.Context, topic string) ([]admin.PartitionState, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return nil, a.err
	}
	if topic == admin.TransactionStateTopic {
		return slices.Clone(a.txnState), nil
	}
	if topic == admin.ConsumerOffsetsTopic {
		return slices.Clone(a.groupState), nil
	}
	if a.simulate {
		a.derive(ctx)
	}
	return slices.Clone(a.parts), nil
}

// LastStableOffset is the high watermark: no transaction holds readers
// back. OpenTxns and AbortTxn are abort-hanging's (nemesis/clients, with
// its own fake); no fault of the seam calls them.
func (a *fakeAdmin) LastStableOffset(ctx context.Context, leader int32, topic string, p int32) (int64, error) {
	return a.HighWatermark(ctx, leader, topic, p)
}

func (a *fakeAdmin) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	return nil, nil
}

func (a *fakeAdmin) AbortTxn(context.Context, string, int32, histories.OpenTxn) error {
	return fmt.Errorf("fake: no transaction to abort")
}

func (a *fakeAdmin) LiveBrokers(ctx context.Context) ([]int32, error) {
	a.c.Mu.Lock()
	a.liveCalls++ // under the cluster's lock: derive calls this holding a.mu
	a.c.Mu.Unlock()
	var out []int32
	for _, b := range a.c.Brokers() {
		if st, _ := a.c.State(ctx, b.ID); st.Running && !st.Paused {
			out = append(out, b.ID)
		}
	}
	return out, nil
}

func (a *fakeAdmin) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hw, nil
}

func (a *fakeAdmin) ActiveController(context.Context) (int32, error) { return a.controller, nil }

// Quorum is q when set, else the fake cluster's controllers as voters led
// by a.controller and its brokers as observers.
func (a *fakeAdmin) Quorum(context.Context) (histories.QuorumValue, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.quorum != nil {
		return *a.quorum, nil
	}
	q := histories.QuorumValue{LeaderID: a.controller, LeaderEpoch: 1}
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
func (a *fakeAdmin) ElectLeadersVia(ctx context.Context, via int32, topic string, partitions []int32, unclean bool) error {
	a.mu.Lock()
	a.electVia = append(a.electVia, via)
	a.mu.Unlock()
	return a.ElectLeaders(ctx, topic, partitions, unclean)
}

// ReorderReplicas reorders a partition's replicas (the workload topic's
// or __transaction_state's); the set must stay the same.
func (a *fakeAdmin) ReorderReplicas(_ context.Context, topic string, partition int32, replicas []int32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	parts := a.parts
	switch topic {
	case admin.TransactionStateTopic:
		parts = a.txnState
	case admin.ConsumerOffsetsTopic:
		parts = a.groupState
	}
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

// ElectLeaders elects the first live replica (unclean) or the preferred one
// (on __transaction_state: the first replica, of the partitions named).
func (a *fakeAdmin) ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) error {
	live, _ := a.LiveBrokers(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.electErrs) > 0 {
		err := a.electErrs[0]
		a.electErrs = a.electErrs[1:]
		return err
	}
	a.elections = append(a.elections, fmt.Sprintf("%s %v unclean=%t", topic, partitions, unclean))
	if topic == admin.TransactionStateTopic || topic == admin.ConsumerOffsetsTopic {
		coord := a.txnState
		if topic == admin.ConsumerOffsetsTopic {
			coord = a.groupState
		}
		for i, p := range coord {
			if slices.Contains(partitions, p.Partition) && slices.Contains(p.ISR, p.Replicas[0]) {
				coord[i].Leader = p.Replicas[0]
			}
		}
		return nil
	}
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
