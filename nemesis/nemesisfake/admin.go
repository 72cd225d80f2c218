package nemesisfake

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// Admin is the unit tests' fake admin client over a Cluster: what the
// faults of the seam and of every room read and change through the admin
// API (nemesis.Admin, which it implements without naming: this package
// imports no part of the nemesis). It serves the workload topic's
// partitions (Parts: one, t-0, led by broker 0 with every broker in
// sync), the coordinators' topics (TxnState, GroupState) with their
// reorders and preferred elections, the live brokers (the cluster's
// running, unpaused ones), the quorum, topic configs, elections, and
// partition 0's offsets and open transactions with their aborts; every
// change is recorded for the tests to read. With Simulate on, it derives
// the workload partition's leader and ISR from the cluster as Kafka
// would, only at once: a leader that is not live leaves the partition
// offline until it returns (no unclean election), and the ISR is the
// leader plus the live replicas that have no kchaos rule cutting them
// from it. Its fields are the tests' to read and set, under Mu.
type Admin struct {
	Mu         sync.Mutex
	C          *Cluster
	Parts      []admin.PartitionState
	Simulate   bool
	Last       int32 // the leader before the partition went offline
	HW         int64
	Err        error // returned by Describe when set
	Configs    map[string]*string
	ConfigOf   string   // the topic of the last SetTopicConfig
	Elections  []string // ElectLeaders calls
	ElectVia   []int32  // the brokers ElectLeadersVia named
	Controller int32    // the active controller (1000)
	ElectErrs  []error  // returned, one per call, before elections succeed
	LiveCalls  int      // LiveBrokers calls, counted under C.Mu
	// TxnState is __transaction_state's partitions (Describe of that topic).
	TxnState []admin.PartitionState
	// GroupState is __consumer_offsets' partitions, for the group roles.
	GroupState []admin.PartitionState
	Reorders   []string // ReorderReplicas calls
	// FixedQuorum, when set, is what Quorum answers.
	FixedQuorum *histories.QuorumValue
	// LSO and Open are partition 0's last stable offset (nil: the high
	// watermark) and the transactions its leader holds open
	// (abort-hanging); Aborts are the AbortTxn calls, each of which ends
	// its transaction (LSO = HW) unless AbortDeaf.
	LSO       *int64
	Open      []histories.OpenTxn
	Aborts    []string
	AbortDeaf bool
}

// NewAdmin is the fake admin of c: partition t-0 led by broker 0 with
// every broker in sync, controller 1000 active.
func NewAdmin(c *Cluster) *Admin {
	return &Admin{C: c, Controller: 1000, Configs: map[string]*string{}, Last: -1,
		Parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
			Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func (a *Admin) derive(ctx context.Context) {
	live, _ := a.LiveBrokers(ctx)
	p := &a.Parts[0]
	if p.Leader >= 0 && !slices.Contains(live, p.Leader) {
		a.Last, p.Leader, p.ISR = p.Leader, -1, []int32{p.Leader}
	}
	if p.Leader < 0 && a.Last >= 0 && slices.Contains(live, a.Last) {
		p.Leader = a.Last
	}
	if p.Leader < 0 {
		return
	}
	isr := []int32{p.Leader}
	for _, r := range p.Replicas {
		if r != p.Leader && slices.Contains(live, r) && !a.C.CutOff(p.Leader, r) {
			isr = append(isr, r)
		}
	}
	slices.Sort(isr)
	p.ISR = isr
}

// Set replaces partition 0's state.
func (a *Admin) Set(p admin.PartitionState) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	a.Parts[0] = p
}

// Describe is a coordinator topic's partitions, or else the workload
// topic's (derived from the cluster with Simulate); Err when set.
func (a *Admin) Describe(ctx context.Context, topic string) ([]admin.PartitionState, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if a.Err != nil {
		return nil, a.Err
	}
	if topic == admin.TransactionStateTopic {
		return slices.Clone(a.TxnState), nil
	}
	if topic == admin.ConsumerOffsetsTopic {
		return slices.Clone(a.GroupState), nil
	}
	if a.Simulate {
		a.derive(ctx)
	}
	return slices.Clone(a.Parts), nil
}

// LastStableOffset is LSO when set, else the high watermark.
func (a *Admin) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if a.LSO == nil {
		return a.HW, nil
	}
	return *a.LSO, nil
}

func (a *Admin) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return a.HW, nil
}

func (a *Admin) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return slices.Clone(a.Open), nil
}

// AbortTxn records the abort and, unless AbortDeaf, ends every open
// transaction (LSO = HW).
func (a *Admin) AbortTxn(_ context.Context, topic string, p int32, t histories.OpenTxn) error {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	a.Aborts = append(a.Aborts, fmt.Sprintf("%s-%d pid %d epoch %d coord %d", topic, p, t.ProducerID, t.ProducerEpoch, t.CoordinatorEpoch))
	if !a.AbortDeaf {
		hw := a.HW
		a.LSO = &hw
		a.Open = nil
	}
	return nil
}

func (a *Admin) LiveBrokers(ctx context.Context) ([]int32, error) {
	a.C.Mu.Lock()
	a.LiveCalls++ // under the cluster's lock: derive calls this holding a.Mu
	a.C.Mu.Unlock()
	var out []int32
	for _, b := range a.C.Brokers() {
		if st, _ := a.C.State(ctx, b.ID); st.Running && !st.Paused {
			out = append(out, b.ID)
		}
	}
	return out, nil
}

func (a *Admin) ActiveController(context.Context) (int32, error) { return a.Controller, nil }

// Quorum is FixedQuorum when set, else the cluster's controllers as
// voters led by a.Controller and its brokers as observers.
func (a *Admin) Quorum(context.Context) (histories.QuorumValue, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if a.FixedQuorum != nil {
		return *a.FixedQuorum, nil
	}
	q := histories.QuorumValue{LeaderID: a.Controller, LeaderEpoch: 1}
	for _, n := range a.C.Controllers() {
		q.Voters = append(q.Voters, histories.QuorumReplica{ID: n.ID})
	}
	for _, n := range a.C.Brokers() {
		q.Observers = append(q.Observers, histories.QuorumReplica{ID: n.ID})
	}
	return q, nil
}

func (a *Admin) SetTopicConfig(_ context.Context, topic, key string, value *string) error {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	a.Configs[key] = value
	a.ConfigOf = topic
	return nil
}

// ElectLeadersVia is ElectLeaders, recording via.
func (a *Admin) ElectLeadersVia(ctx context.Context, via int32, topic string, partitions []int32, unclean bool) error {
	a.Mu.Lock()
	a.ElectVia = append(a.ElectVia, via)
	a.Mu.Unlock()
	return a.ElectLeaders(ctx, topic, partitions, unclean)
}

// ReorderReplicas reorders a partition's replicas (the workload topic's
// or a coordinator topic's); the set must stay the same.
func (a *Admin) ReorderReplicas(_ context.Context, topic string, partition int32, replicas []int32) error {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	parts := a.Parts
	switch topic {
	case admin.TransactionStateTopic:
		parts = a.TxnState
	case admin.ConsumerOffsetsTopic:
		parts = a.GroupState
	}
	for i, p := range parts {
		if p.Partition == partition {
			if !slices.Equal(slices.Sorted(slices.Values(p.Replicas)), slices.Sorted(slices.Values(replicas))) {
				return fmt.Errorf("fake: %s-%d: %v is not a reorder of %v", topic, partition, replicas, p.Replicas)
			}
			parts[i].Replicas = slices.Clone(replicas)
			a.Reorders = append(a.Reorders, fmt.Sprintf("%s-%d %v", topic, partition, replicas))
			return nil
		}
	}
	return fmt.Errorf("fake: %s has no partition %d", topic, partition)
}

// ElectLeaders returns the next of ElectErrs while any is left; else it
// records the call and elects: on a coordinator topic, of the partitions
// named, the first replica where it is in the ISR (preferred); on the
// workload topic the first live replica (unclean) or the first live one
// in the ISR (preferred: after a reorder, the new first replica).
func (a *Admin) ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) error {
	live, _ := a.LiveBrokers(ctx)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if len(a.ElectErrs) > 0 {
		err := a.ElectErrs[0]
		a.ElectErrs = a.ElectErrs[1:]
		return err
	}
	a.Elections = append(a.Elections, fmt.Sprintf("%s %v unclean=%t", topic, partitions, unclean))
	if topic == admin.TransactionStateTopic || topic == admin.ConsumerOffsetsTopic {
		coord := a.TxnState
		if topic == admin.ConsumerOffsetsTopic {
			coord = a.GroupState
		}
		for i, p := range coord {
			if slices.Contains(partitions, p.Partition) && slices.Contains(p.ISR, p.Replicas[0]) {
				coord[i].Leader = p.Replicas[0]
			}
		}
		return nil
	}
	for i, p := range a.Parts {
		for _, r := range p.Replicas {
			if slices.Contains(live, r) && (unclean || slices.Contains(p.ISR, r)) {
				a.Parts[i].Leader = r
				a.Parts[i].ISR = []int32{r}
				a.Last = r
				break
			}
		}
	}
	return nil
}
