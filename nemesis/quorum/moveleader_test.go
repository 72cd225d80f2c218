package quorum

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kchaos/kchaos/nemesis"
)

// TestMoveLeader: move-leader puts the target first among the replicas of
// the workload topic's partition and elects it; it resolves a role (w3:
// the share coordinator) and refuses what it cannot do, changing nothing.
func TestMoveLeader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		target   *nemesis.Target
		coord    int32 // the share coordinator, for role share-coordinator
		isr      []int32
		reorders string
		after    string
		err      string
	}{
		{"to broker 2", nodes0(2), 0, nil, "[t-0 [2 0 1]]", "map[0:2]", ""},
		{"to the share coordinator", &nemesis.Target{Role: nemesis.RoleShareCoordinator}, 1, nil, "[t-0 [1 0 2]]", "map[0:1]", ""},
		{"already the leader", nodes0(0), 0, nil, "[]", "map[0:0]", ""},
		{"not in the ISR", nodes0(2), 0, []int32{0, 1}, "", "", "broker 2 is not in the ISR [0 1] of t-0"},
		{"two brokers", &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0, 1}}, 0, nil, "", "", "a leader is one broker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.ShareGroup = "q"
			env.Admin = &shareAdmin{fakeAdmin: a, coord: tc.coord}
			if tc.isr != nil {
				a.Parts[0].ISR = tc.isr
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			got, d, err := (&MoveLeaderParams{}).Build(nemesis.Step{Target: tc.target}).Inject(ctx, env)
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
			if fmt.Sprint(a.Reorders) != tc.reorders || fmt.Sprint(d["leaders_after"]) != tc.after || len(got) != 1 {
				t.Errorf("nodes %v, reorders %v, leaders_after %v; want reorders %s, leaders %s", got, a.Reorders, d["leaders_after"], tc.reorders, tc.after)
			}
		})
	}
}
