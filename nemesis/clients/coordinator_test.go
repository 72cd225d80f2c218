package clients

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/nemesis"
)

// TestMoveCoordinator: move-coordinator reorders the replicas of the
// __transaction_state partitions owning the workload's transactional ids
// (11 and 10 of 50 for kchaos-kchaos-txn-0 and -1, admin's
// TestTxnStatePartition), elects the new first replica, and records the
// leaders; it refuses what it cannot do.
func TestMoveCoordinator(t *testing.T) {
	state := func(mut func(p []admin.PartitionState)) []admin.PartitionState {
		out := make([]admin.PartitionState, 50)
		for i := range out {
			r := []int32{int32(i % 3), int32((i + 1) % 3), int32((i + 2) % 3)}
			out[i] = admin.PartitionState{Topic: admin.TransactionStateTopic, Partition: int32(i), Leader: r[0], Replicas: r, ISR: r}
		}
		if mut != nil {
			mut(out)
		}
		return out
	}
	ids := []string{"kchaos-kchaos-txn-0", "kchaos-kchaos-txn-1"}
	for _, tc := range []struct {
		name     string
		ids      []string
		parts    []admin.PartitionState
		target   *nemesis.Target
		reorders string
		after    string
		err      string
	}{
		{"moves both owners", ids, state(nil), nodes0(0),
			"[__transaction_state-10 [0 1 2] __transaction_state-11 [0 2 1]]", "map[10:0 11:0]", ""},
		{"one already there", ids, state(nil), nodes0(2),
			"[__transaction_state-10 [2 1 0]]", "map[10:2 11:2]", ""},
		{"not in the ISR", ids, state(func(p []admin.PartitionState) { p[10].ISR = []int32{0, 1} }), nodes0(2),
			"", "", "broker 2 is not in the ISR [0 1] of __transaction_state-10"},
		{"two brokers", ids, state(nil), &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0, 1}}, "", "", "a coordinator is one broker"},
		{"no transactions", nil, state(nil), nodes0(0), "", "", "no transactional producer"},
		{"no topic yet", ids, nil, nodes0(0), "", "", "not ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.TransactionalIDs = tc.ids
			a.TxnState = tc.parts
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			f := &moveCoordinator{target: tc.target}
			got, d, err := f.Inject(ctx, env)
			if tc.err != "" {
				wantErr(t, err, tc.err)
				if len(a.Reorders) != 0 {
					t.Errorf("refused, yet reordered %v", a.Reorders)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.target.Nodes) {
				t.Errorf("nodes %v, want %v", got, tc.target.Nodes)
			}
			if fmt.Sprint(a.Reorders) != tc.reorders {
				t.Errorf("reorders %v, want %s", a.Reorders, tc.reorders)
			}
			if fmt.Sprint(d["leaders_after"]) != tc.after {
				t.Errorf("leaders_after %v, want %s (details %v)", d["leaders_after"], tc.after, d)
			}
			if fmt.Sprint(d["partitions"]) != "map[10:[kchaos-kchaos-txn-1] 11:[kchaos-kchaos-txn-0]]" {
				t.Errorf("partitions %v", d["partitions"])
			}
		})
	}
}

// nodes0 is the target of the one node id.
func nodes0(id int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{id}}
}

// TestMoveGroupCoordinator: with coordinator: group, move-coordinator
// moves the __consumer_offsets partition owning the workload's group id
// (admin.GroupPartition) and nothing else; without a group it refuses.
func TestMoveGroupCoordinator(t *testing.T) {
	const group = "k20507"
	owner := admin.GroupPartition(group, 50)
	for _, tc := range []struct {
		name, group string
		err         string
	}{{"moves the group's partition", group, ""}, {"no group", "", "no consumer group"}} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.GroupID = tc.group
			a.GroupState = make([]admin.PartitionState, 50)
			for i := range a.GroupState {
				r := []int32{int32(i % 3), int32((i + 1) % 3), int32((i + 2) % 3)}
				a.GroupState[i] = admin.PartitionState{Topic: admin.ConsumerOffsetsTopic, Partition: int32(i), Leader: r[0], Replicas: r, ISR: r}
			}
			to := (a.GroupState[owner].Leader + 1) % 3
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			f := &moveCoordinator{target: nodes0(to), group: true}
			_, d, err := f.Inject(ctx, env)
			if tc.err != "" {
				wantErr(t, err, tc.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Reorders) != 1 || a.GroupState[owner].Leader != to {
				t.Errorf("reorders %v, leader of %d %d: want partition %d alone, led by %d", a.Reorders, owner, a.GroupState[owner].Leader, owner, to)
			}
			if d["topic"] != admin.ConsumerOffsetsTopic || fmt.Sprint(d["partitions"]) != fmt.Sprintf("map[%d:[%s]]", owner, group) {
				t.Errorf("details %v", d)
			}
			if s := f.Spec(); s["coordinator"] != coordinatorGroup {
				t.Errorf("spec %v: want coordinator group, so that a replay moves the same one", s)
			}
		})
	}
}
