package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// shareAdmin is the fake admin that also finds share coordinators.
type shareAdmin struct {
	*fakeAdmin
	coord int32
	err   error
	asked string
}

func (a *shareAdmin) ShareCoordinator(_ context.Context, group, topic string, p int32) (int32, error) {
	a.asked = fmt.Sprintf("%s:%s:%d", group, topic, p)
	return a.coord, a.err
}

// TestResolveShareCoordinator: the role asks the admin client for the
// coordinator of the share group's partition 0, and says why it cannot.
func TestResolveShareCoordinator(t *testing.T) {
	for _, tc := range []struct {
		name   string
		group  string
		finder bool
		err    error
		want   string
		wantE  string
	}{
		{"found", "q", true, nil, "[2]", ""},
		{"no share group", "", true, nil, "", "no share group"},
		{"admin cannot ask", "q", false, nil, "", "cannot find share coordinators"},
		{"broker refuses", "q", true, errors.New("UNSUPPORTED_VERSION"), "", "UNSUPPORTED_VERSION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.ShareGroup = tc.group
			sa := &shareAdmin{fakeAdmin: a, coord: 2, err: tc.err}
			if tc.finder {
				env.Admin = sa
			}
			got, err := env.Resolve(context.Background(), &Target{Role: RoleShareCoordinator})
			if tc.wantE != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantE) {
					t.Fatalf("error %v, want %q", err, tc.wantE)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != tc.want || sa.asked != "q:"+env.Topic+":0" {
				t.Fatalf("got %v %v (asked %q), want %s", got, err, sa.asked, tc.want)
			}
		})
	}
}

func TestShareCoordinatorStepsValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // empty: valid
	}{
		{"leader-followers share-coordinator", "steps:\n - fault: partition\n   shape: leader-followers\n   target: {role: share-coordinator}", nil},
		{"leader-followers controller", "steps:\n - fault: partition\n   shape: leader-followers\n   target: {role: controller}",
			[]string{"nemesis.steps[0].target.role: shape leader-followers takes role leader (or none) and a partition, or role share-coordinator"}},
		{"set-config on a topic", "steps:\n - fault: set-config\n   topic: __share_group_state\n   config: {min.insync.replicas: \"1\"}", nil},
		{"set-config topic with spaces", "steps:\n - fault: set-config\n   topic: \" x\"\n   config: {min.insync.replicas: \"1\"}",
			[]string{`nemesis.steps[0].topic: " x": a topic name has no surrounding spaces`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParse(t, tc.yaml, tc.want) })
	}
}
