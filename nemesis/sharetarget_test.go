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
