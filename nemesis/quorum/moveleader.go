package quorum

import (
	"context"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// moveLeaderKind reorders replicas and elects through the admin API:
// every backend can.
var moveLeaderKind = nemesis.Kind{Name: histories.FMoveLeader, New: func() nemesis.Params { return &MoveLeaderParams{} },
	// A placement the story chose, not a failure: the metrics do not look
	// for a new leader after it.
	Heal: nemesis.Instant, Color: "#7b68ee", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: nemesis.AdminProof}

// MoveLeaderParams are a move-leader's: which partition of the workload's
// topic the target broker is to lead.
type MoveLeaderParams struct {
	Partition int32 `yaml:"partition,omitempty"`
}

func (mp *MoveLeaderParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
	if mp.Partition < 0 {
		add(p+".partition", "must not be negative")
	}
}

func (mp *MoveLeaderParams) Build(st nemesis.Step) nemesis.Fault {
	return &moveLeader{target: st.Target, partition: mp.Partition}
}

// moveLeader makes one broker the leader of a partition of the workload's
// topic: the broker first in its replica list (the same replicas in
// another order: nothing moves) and a preferred election. A placement,
// not a failure: w3 puts partition 0's leader on the share coordinator
// that holds its state, so that, once cut off from the other brokers, the
// coordinator goes on confirming that share-partition's acks alone (a
// share-partition leader on another broker could not reach it, and no
// ack would be confirmed there to lose). The broker must be in the
// partition's ISR.
type moveLeader struct {
	target    *nemesis.Target
	partition int32
}

func (f *moveLeader) Name() string { return histories.FMoveLeader }

func (f *moveLeader) Heal(context.Context, *nemesis.Env) error { return nil }

func (f *moveLeader) Spec() map[string]any {
	return map[string]any{"target": f.target, "partition": f.partition}
}

func (f *moveLeader) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	nodes, err := e.Resolve(ctx, f.target)
	if err != nil {
		return nil, nil, err
	}
	if len(nodes) != 1 {
		return nil, nil, fmt.Errorf("%s: the target is %d nodes %v; a leader is one broker", histories.FMoveLeader, len(nodes), nodes)
	}
	to := nodes[0]
	p, err := e.Partition(ctx, f.partition)
	if err != nil {
		return nil, nil, err
	}
	details := map[string]any{"topic": e.Topic, "partition": f.partition, "to": to, "leader_before": p.Leader}
	if !slices.Contains(p.ISR, to) {
		return nil, details, fmt.Errorf("%s: broker %d is not in the ISR %v of %s-%d (replicas %v): it cannot lead it",
			histories.FMoveLeader, to, p.ISR, e.Topic, f.partition, p.Replicas)
	}
	orders := map[int32][]int32{}
	if len(p.Replicas) > 0 && p.Replicas[0] != to {
		orders[f.partition] = append([]int32{to}, slices.DeleteFunc(slices.Clone(p.Replicas), func(r int32) bool { return r == to })...)
	}
	after, err := e.Lead(ctx, histories.FMoveLeader, e.Topic, []int32{f.partition}, orders, to)
	if after != nil {
		details["leaders_after"] = after
	}
	if err != nil {
		return nil, details, err
	}
	return []int32{to}, details, nil
}
