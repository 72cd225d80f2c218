package nemesis

import (
	"context"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/cluster/admin"
)

// Resolve turns a target into node ids at the moment a fault fires: roles
// that depend on the cluster (a partition's leader, its ISR, the active
// controller) are read now, because the fault is meant for whoever holds
// the role when it strikes, not when the scenario was written.
func (e *Env) Resolve(ctx context.Context, t *Target) ([]int32, error) {
	if t == nil {
		return nil, fmt.Errorf("no target")
	}
	switch t.Role {
	case RoleLeader, RoleFollowers, RoleISR, RoleOutOfISR:
		p, err := e.Partition(ctx, t.Partition)
		if err != nil {
			return nil, err
		}
		ids, err := partitionRole(p, t.Role)
		return t.firstOf(ids), err
	case RoleController, RoleActiveController, RoleControllerFollowers, RoleObservers:
		return e.quorum(ctx, t.Role) // quorumtarget.go
	case RoleTxnCoordinator:
		return e.txnCoordinator(ctx)
	case RoleGroupCoordinator, RoleGroupCoordinatorFollowers:
		return e.groupCoordinator(ctx, t.Role)
	case RoleShareCoordinator:
		return e.shareCoordinator(ctx)
	case RoleRack:
		var out []int32
		for _, b := range e.Cluster.Brokers() {
			if b.Rack == t.Rack {
				out = append(out, b.ID)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("rack %q has no brokers", t.Rack)
		}
		return out, nil
	case RoleRandom:
		return e.rand().pick(e.BrokerIDs(), max(t.Count, 1)), nil
	case RoleNodes:
		for _, id := range t.Nodes {
			if _, ok := e.Cluster.Node(id); !ok {
				return nil, fmt.Errorf("node %d is not in this run", id)
			}
		}
		return sortedIDs(t.Nodes), nil
	}
	return nil, fmt.Errorf("unknown role %q", t.Role)
}

// ResolvePartitionRoles resolves roles of one partition (leader,
// followers, ...) from a single read of its state, so that they agree
// with each other as Resolve's separate reads might not: exported for the
// rooms whose faults need two roles at once (nemesis/network's
// leader-followers cut).
func (e *Env) ResolvePartitionRoles(ctx context.Context, partition int32, roles ...string) ([][]int32, error) {
	p, err := e.Partition(ctx, partition)
	if err != nil {
		return nil, err
	}
	out := make([][]int32, len(roles))
	for i, r := range roles {
		if out[i], err = partitionRole(p, r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// firstOf is the first Count of a partition role's members, in id order
// (all of them without a Count): a strike at "one follower" that names the
// same broker whenever the partition's state is the same, so that a
// schedule replays (a random pick would need the run's seed, and a fixed
// node id would stop being a follower once the leader moved). ids are
// sorted (partitionRole).
func (t *Target) firstOf(ids []int32) []int32 {
	if t.Count > 0 && len(ids) > t.Count {
		return ids[:t.Count]
	}
	return ids
}

// partitionRole picks a role's members from one partition's state.
func partitionRole(p admin.PartitionState, role string) ([]int32, error) {
	var out []int32
	switch role {
	case RoleLeader:
		if p.Leader < 0 {
			return nil, fmt.Errorf("partition %d is offline: no leader", p.Partition)
		}
		return []int32{p.Leader}, nil
	case RoleFollowers:
		if p.Leader < 0 {
			return nil, fmt.Errorf("partition %d is offline: no leader, so no followers", p.Partition)
		}
		for _, r := range p.Replicas {
			if r != p.Leader {
				out = append(out, r)
			}
		}
	case RoleISR:
		out = slices.Clone(p.ISR)
	case RoleOutOfISR:
		for _, r := range p.Replicas {
			if !slices.Contains(p.ISR, r) {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("partition %d has no %s (replicas %v, isr %v, leader %d)",
			p.Partition, role, p.Replicas, p.ISR, p.Leader)
	}
	return sortedIDs(out), nil
}

// Partition describes one partition of the workload topic: the targets'
// read, exported for the rooms' kinds that act on one partition
// (nemesis/quorum's move-leader).
func (e *Env) Partition(ctx context.Context, p int32) (admin.PartitionState, error) {
	return describePartition(ctx, e.State(), e.Topic, p)
}

func describePartition(ctx context.Context, src StateSource, topic string, p int32) (admin.PartitionState, error) {
	parts, err := src.Describe(ctx, topic)
	if err != nil {
		return admin.PartitionState{}, err
	}
	for _, s := range parts {
		if s.Partition == p {
			return s, nil
		}
	}
	return admin.PartitionState{}, fmt.Errorf("topic %s has no partition %d", topic, p)
}

// txnCoordinator is the leader of the __transaction_state partition that
// owns the workload's first transactional id: Kafka's own mapping
// (admin.TxnStatePartition), read from the partition's state now, like a
// leader role, so the fault strikes whoever coordinates when it fires.
func (e *Env) txnCoordinator(ctx context.Context) ([]int32, error) {
	if len(e.TransactionalIDs) == 0 {
		return nil, fmt.Errorf("role %s: the workload has no transactional producer", RoleTxnCoordinator)
	}
	id := e.TransactionalIDs[0]
	parts, err := e.State().Describe(ctx, admin.TransactionStateTopic)
	if err != nil {
		return nil, fmt.Errorf("role %s: %s: %w", RoleTxnCoordinator, admin.TransactionStateTopic, err)
	}
	want := admin.TxnStatePartition(id, len(parts))
	for _, p := range parts {
		if p.Partition == want {
			if p.Leader < 0 {
				return nil, fmt.Errorf("role %s: %s partition %d (owner of %q) has no leader",
					RoleTxnCoordinator, admin.TransactionStateTopic, want, id)
			}
			return []int32{p.Leader}, nil
		}
	}
	return nil, fmt.Errorf("role %s: %s has no partition %d (owner of %q; it has %d; does the workload run transactions yet?)",
		RoleTxnCoordinator, admin.TransactionStateTopic, want, id, len(parts))
}
