package clients

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis"
)

// coordinatorTopicWait bounds how long move-coordinator waits for the
// coordinator's topic to exist: Kafka creates __transaction_state and
// __consumer_offsets at the first FindCoordinator that needs them, so at
// a run's start they may not be there yet.
const coordinatorTopicWait = 30 * time.Second

// The coordinators move-coordinator can move (moveCoordinatorParams.Coordinator).
const (
	coordinatorTransaction = "transaction"
	coordinatorGroup       = "group"
)

// moveCoordinatorKind reorders replicas and elects through the admin API:
// every backend can.
// It leaves the coordinator topic's replicas reordered.
var moveCoordinatorKind = nemesis.Kind{Name: histories.FMoveCoordinator, New: func() nemesis.Params { return &moveCoordinatorParams{} },
	LeavesState: "reorders __transaction_state's (or __consumer_offsets') replicas",
	Heal:        nemesis.Instant, Color: "#6a5acd", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: nemesis.AdminProof}

// moveCoordinatorParams: the broker is the target; Coordinator says
// whose coordinator moves: the workload's transactional ids'
// (CoordinatorTransaction, the default) or its consumer group's
// (CoordinatorGroup: the __consumer_offsets partition owning the group id).
type moveCoordinatorParams struct {
	Coordinator string `yaml:"coordinator,omitempty"`
}

func (mp *moveCoordinatorParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
	switch mp.Coordinator {
	case "", coordinatorTransaction, coordinatorGroup:
	default:
		add(p+".coordinator", "%q: want %s (the default) or %s", mp.Coordinator, coordinatorTransaction, coordinatorGroup)
	}
}

// CheckAgainst: the coordinator is found by the workload's
// transactional ids or group id; without them the step could only fail
// when it fires.
func (mp *moveCoordinatorParams) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	switch {
	case mp.Coordinator == coordinatorGroup && !v.Group:
		add(p+".coordinator", "%s needs workload.group: the workload has no consumer group", mp.Coordinator)
	case mp.Coordinator != coordinatorGroup && !v.Transactional:
		add(p+".fault", "%s needs workload.transactions.enabled: the workload has no transactional id", st.Fault)
	}
}

func (mp *moveCoordinatorParams) Build(st nemesis.Step) nemesis.Fault {
	return &moveCoordinator{target: st.Target, group: mp.Coordinator == coordinatorGroup}
}

// moveCoordinator makes one broker the transaction coordinator of every
// transactional id of the workload. For each __transaction_state partition
// that owns one (Kafka's partitionFor, admin.TxnStatePartition) it puts
// the broker first in the replica list (the same replicas in another
// order: nothing moves) and runs a preferred election, as an operator does
// with kafka-reassign-partitions and kafka-leader-election.
//
// It is a placement, not a failure: a story uses it to put the coordinator
// where its fault strikes. t3 puts it on the leader it then cuts off, so
// that transactions go on committing there alone; with the coordinator on
// another broker the cut-off leader cannot reach it, every transaction
// writing there stalls, and the story has nothing to lose.
//
// The broker must be a replica of those partitions and in their ISR
// (transaction.state.log.replication.factor is the brokers' count up to 3:
// on three brokers each one is). Transactions open at the move see a
// coordinator failover (NOT_COORDINATOR, then the new coordinator loads
// the state). The op records the partitions with the ids they own and
// their leaders before and after.
//
// With coordinator: group it moves the consumer group's coordinator the
// same way: the __consumer_offsets partition owning the group id
// (admin.GroupPartition) led by the broker, so that a story can keep the
// group's committed offsets away from the broker its fault strikes
// (k20507) or put them on it.
type moveCoordinator struct {
	target *nemesis.Target
	group  bool
}

func (f *moveCoordinator) Name() string { return histories.FMoveCoordinator }

func (f *moveCoordinator) Heal(context.Context, *nemesis.Env) error { return nil }

func (f *moveCoordinator) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	topic, keys, partitionFor := admin.TransactionStateTopic, e.TransactionalIDs, admin.TxnStatePartition
	if f.group {
		topic, keys, partitionFor = admin.ConsumerOffsetsTopic, nil, admin.GroupPartition
		if e.GroupID != "" {
			keys = []string{e.GroupID}
		}
	}
	if len(keys) == 0 {
		return nil, nil, fmt.Errorf("%s: the workload has no %s", histories.FMoveCoordinator, map[bool]string{false: "transactional producer", true: "consumer group"}[f.group])
	}
	nodes, err := e.Resolve(ctx, f.target)
	if err != nil {
		return nil, nil, err
	}
	if len(nodes) != 1 {
		return nil, nil, fmt.Errorf("%s: the target is %d nodes %v; a coordinator is one broker", histories.FMoveCoordinator, len(nodes), nodes)
	}
	to := nodes[0]
	parts, err := coordinatorPartitions(ctx, e, topic, keys, partitionFor)
	if err != nil {
		return nil, nil, err
	}
	owners := map[int32][]string{}
	for _, id := range keys {
		p := partitionFor(id, len(parts))
		owners[p] = append(owners[p], id)
	}
	ids := slices.Sorted(maps.Keys(owners))
	details := map[string]any{"topic": topic, "to": to}
	owned := map[string][]string{}
	before := map[string]int32{}
	orders := map[int32][]int32{}
	for _, p := range parts {
		if _, ok := owners[p.Partition]; !ok {
			continue
		}
		k := histories.PartitionKey(p.Partition)
		owned[k], before[k] = owners[p.Partition], p.Leader
		if !slices.Contains(p.ISR, to) {
			return nil, details, fmt.Errorf("%s: broker %d is not in the ISR %v of %s-%d (replicas %v): it cannot lead it",
				histories.FMoveCoordinator, to, p.ISR, topic, p.Partition, p.Replicas)
		}
		if len(p.Replicas) > 0 && p.Replicas[0] != to {
			orders[p.Partition] = append([]int32{to}, slices.DeleteFunc(slices.Clone(p.Replicas), func(r int32) bool { return r == to })...)
		}
	}
	details["partitions"], details["leaders_before"] = owned, before
	after, err := e.Lead(ctx, histories.FMoveCoordinator, topic, ids, orders, to)
	if after != nil {
		details["leaders_after"] = after
	}
	if err != nil {
		return nil, details, err
	}
	return []int32{to}, details, nil
}

// coordinatorPartitions describes a coordinator's topic, waiting (at
// most coordinatorTopicWait) until it exists and the partitions owning
// keys (partitionFor: Kafka's mapping) have a leader.
func coordinatorPartitions(ctx context.Context, e *nemesis.Env, topic string, keys []string, partitionFor func(string, int) int32) ([]admin.PartitionState, error) {
	deadline := time.Now().Add(coordinatorTopicWait)
	for {
		parts, err := e.State().Describe(ctx, topic)
		if err == nil && len(parts) > 0 {
			var leaderless []int32
			for _, id := range keys {
				p := partitionFor(id, len(parts))
				if i := slices.IndexFunc(parts, func(s admin.PartitionState) bool { return s.Partition == p }); i < 0 || parts[i].Leader < 0 {
					leaderless = append(leaderless, p)
				}
			}
			if len(leaderless) == 0 {
				return parts, nil
			}
			err = fmt.Errorf("partitions %v have no leader", leaderless)
		} else if err == nil {
			err = fmt.Errorf("no partitions")
		}
		if time.Now().After(deadline) || ctxsleep.Sleep(ctx, nemesis.PollInterval) != nil {
			return nil, fmt.Errorf("%s: %s not ready after %s (does the workload use it yet?): %w",
				histories.FMoveCoordinator, topic, time.Since(deadline.Add(-coordinatorTopicWait)).Round(time.Millisecond), err)
		}
	}
}

func (f *moveCoordinator) Spec() map[string]any {
	s := map[string]any{}
	if f.target != nil {
		s["target"] = f.target
	}
	if f.group {
		s["coordinator"] = coordinatorGroup
	}
	if len(s) == 0 {
		return nil
	}
	return s
}
