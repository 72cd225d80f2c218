package nemesis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// newQuorumEnv is the fake env with three controllers (1000-1002) and the
// quorum q.
func newQuorumEnv(q *histories.QuorumValue) (*Env, *fakeCluster, *fakeAdmin) {
	env, c, a := newFakeEnv()
	c.AddControllers(3)
	a.FixedQuorum = q
	return env, c, a
}

// TestResolveQuorumRoles: the quorum roles come from DescribeQuorum as it
// is when the fault fires, not from the cluster's layout.
func TestResolveQuorumRoles(t *testing.T) {
	full := quorum(1001, []int32{1000, 1001, 1002}, []int32{0, 1, 2})
	for _, tc := range []struct {
		name string
		q    *histories.QuorumValue
		role string
		want string
		err  string
	}{
		{"active", full, RoleActiveController, "[1001]", ""},
		{"controller is the active one", full, RoleController, "[1001]", ""},
		{"followers", full, RoleControllerFollowers, "[1000 1002]", ""},
		{"observers", full, RoleObservers, "[0 1 2]", ""},
		{"a removed voter observes", quorum(1000, []int32{1000, 1001}, []int32{0, 1002}), RoleObservers, "[0 1002]", ""},
		{"followers of a shrunk quorum", quorum(1000, []int32{1000, 1001}, nil), RoleControllerFollowers, "[1001]", ""},
		{"no leader", quorum(-1, []int32{1000, 1001, 1002}, nil), RoleActiveController, "", "no leader (epoch 4)"},
		{"no leader no followers", quorum(-1, []int32{1000, 1001, 1002}, nil), RoleControllerFollowers, "", "no followers"},
		{"single voter has no followers", quorum(1000, []int32{1000}, []int32{0}), RoleControllerFollowers, "", "none in the quorum"},
		{"no observers", quorum(1000, []int32{1000}, nil), RoleObservers, "", "none in the quorum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := newQuorumEnv(tc.q)
			got, err := env.Resolve(context.Background(), &Target{Role: tc.role})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != tc.want {
				t.Fatalf("got %v %v, want %s", got, err, tc.want)
			}
		})
	}
}

// TestPlanTargetQuorumShapes: a random mix's cut of controllers aims at
// the active controller unless the schedule's targets name controllers.
func TestPlanTargetQuorumShapes(t *testing.T) {
	for _, tc := range []struct {
		given *Target
		want  string
	}{
		{nil, "active-controller []"},
		{&Target{Role: RoleRandom, Count: 1}, "active-controller []"},
		{&Target{Role: RoleLeader}, "active-controller []"},
		{&Target{Role: RoleControllerFollowers}, "controller-followers []"},
		{&Target{Role: RoleNodes, Nodes: []int32{1001}}, "nodes [1001]"},
	} {
		got := planTarget(newPRNG(1), tc.given, true, false, ShapeFromVoters, []int32{0, 1, 2})
		if s := fmt.Sprintf("%s %v", got.Role, got.Nodes); s != tc.want {
			t.Errorf("targets %+v: got %s, want %s", tc.given, s, tc.want)
		}
	}
}
