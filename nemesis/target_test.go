package nemesis

import (
	"context"
	"fmt"
	"strings"
	"testing"
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
			a.parts[0].ISR, a.parts[0].Leader = tc.isr, tc.leader
			got, err := env.Resolve(context.Background(), &tc.target)
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
