package nemesis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster/admin"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target Target
		isr    []int32
		leader int32
		want   string
		err    string
	}{
		{"leader", Target{Role: RoleLeader}, []int32{0, 1, 2}, 0, "[0]", ""},
		{"leader elsewhere", Target{Role: RoleLeader}, []int32{1, 2}, 2, "[2]", ""},
		{"no leader", Target{Role: RoleLeader}, []int32{0}, -1, "", "offline"},
		{"followers", Target{Role: RoleFollowers}, []int32{0}, 0, "[1 2]", ""},
		{"followers of another leader", Target{Role: RoleFollowers}, []int32{1}, 1, "[0 2]", ""},
		{"isr", Target{Role: RoleISR}, []int32{0, 1}, 0, "[0 1]", ""},
		{"out of isr", Target{Role: RoleOutOfISR}, []int32{0, 1}, 0, "[2]", ""},
		{"none out of isr", Target{Role: RoleOutOfISR}, []int32{0, 1, 2}, 0, "", "has no out-of-isr"},
		// A count takes the role's first members in id order: the same
		// broker whenever the partition's state is the same.
		{"one follower", Target{Role: RoleFollowers, Count: 1}, []int32{0, 1, 2}, 0, "[1]", ""},
		{"one follower of another leader", Target{Role: RoleFollowers, Count: 1}, []int32{0, 1, 2}, 1, "[0]", ""},
		{"one follower out of the isr", Target{Role: RoleFollowers, Count: 1}, []int32{0, 2}, 0, "[1]", ""},
		{"two of the isr", Target{Role: RoleISR, Count: 2}, []int32{2, 0, 1}, 0, "[0 1]", ""},
		{"a count above the members", Target{Role: RoleOutOfISR, Count: 2}, []int32{0, 1}, 0, "[2]", ""},
		{"a count of none", Target{Role: RoleOutOfISR, Count: 1}, []int32{0, 1, 2}, 0, "", "has no out-of-isr"},
		{"a count offline", Target{Role: RoleFollowers, Count: 1}, []int32{0}, -1, "", "offline"},
		{"missing partition", Target{Role: RoleISR, Partition: 9}, []int32{0}, 0, "", "no partition 9"},
		{"controller", Target{Role: RoleController}, nil, 0, "[1000]", ""},
		{"rack", Target{Role: RoleRack, Rack: "a"}, nil, 0, "[0 1]", ""},
		{"empty rack", Target{Role: RoleRack, Rack: "z"}, nil, 0, "", `rack "z"`},
		{"nodes", Target{Role: RoleNodes, Nodes: []int32{2, 0, 2}}, nil, 0, "[0 2]", ""},
		{"foreign node", Target{Role: RoleNodes, Nodes: []int32{7}}, nil, 0, "", "node 7 is not in this run"},
		{"bad role", Target{Role: "boss"}, nil, 0, "", "unknown role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			a.Parts[0].ISR, a.Parts[0].Leader = tc.isr, tc.leader
			got, err := env.Resolve(context.Background(), &tc.target)
			wantResolved(t, got, err, tc.want, tc.err)
		})
	}
}

// TestResolveRandomSeeded: random targets come from the env's seed, so a
// scripted run with role random replays.
func TestResolveRandomSeeded(t *testing.T) {
	draw := func(seed int64) string {
		env, _, _ := newFakeEnv()
		env.Seed = seed
		var out []string
		for range 5 {
			ids, err := env.Resolve(context.Background(), &Target{Role: RoleRandom, Count: 2})
			if err != nil || len(ids) != 2 || ids[0] >= ids[1] || ids[1] > 2 {
				t.Fatalf("random 2 brokers: %v %v", ids, err)
			}
			out = append(out, fmt.Sprint(ids))
		}
		return strings.Join(out, " ")
	}
	if a, b := draw(11), draw(11); a != b {
		t.Errorf("seed 11 drew %s then %s", a, b)
	}
}

// TestResolveTxnCoordinator: the coordinator is the leader of the
// __transaction_state partition Kafka maps the first transactional id to
// (here 11 of 50 for "kchaos-kchaos-txn-0", admin.TestTxnStatePartition).
func TestResolveTxnCoordinator(t *testing.T) {
	state := func(n int, leaderOf11 int32) []admin.PartitionState {
		out := make([]admin.PartitionState, n)
		for i := range out {
			out[i] = admin.PartitionState{Partition: int32(i), Leader: int32(i % 3)}
		}
		if n > 11 {
			out[11].Leader = leaderOf11
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		ids   []string
		parts []admin.PartitionState
		want  string
		err   string
	}{
		{"leader of the owning partition", []string{"kchaos-kchaos-txn-0", "other"}, state(50, 1), "[1]", ""},
		{"moves with the leader", []string{"kchaos-kchaos-txn-0"}, state(50, 0), "[0]", ""},
		{"owner offline", []string{"kchaos-kchaos-txn-0"}, state(50, -1), "", "has no leader"},
		{"topic not created yet", []string{"kchaos-kchaos-txn-0"}, nil, "", "has no partition"},
		{"no transactional producer", nil, state(50, 1), "", "no transactional producer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.TransactionalIDs = tc.ids
			a.TxnState = tc.parts
			got, err := env.Resolve(context.Background(), &Target{Role: RoleTxnCoordinator})
			wantResolved(t, got, err, tc.want, tc.err)
		})
	}
}
