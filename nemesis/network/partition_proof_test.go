package network

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
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

func TestParseProbe(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want nemesis.Reach
		err  bool
	}{
		{"rc=0 \n", nemesis.ReachOpen, false},
		{"rc=124 \n", nemesis.ReachDropped, false},
		{"rc=1 bash: connect: Connection refused\nbash: line 1: /dev/tcp/10.0.0.2/9092: Connection refused\n", nemesis.ReachRefused, false},
		{"rc=1 bash: connect: Operation not permitted", nemesis.ReachDropped, false},
		{"rc=1 bash: connect: nemesis.No route to host", nemesis.ReachUnreachable, false},
		{"rc=1 bash: connect: Network is unreachable", nemesis.ReachUnreachable, false},
		{"rc=127 sh: 1: bash: not found", "", true},
		{"OCI runtime exec failed", "", true},
	} {
		got, err := parseProbe(tc.out)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("parseProbe(%q) = %q, %v; want %q, error %v", tc.out, got, err, tc.want, tc.err)
		}
	}
}

// TestProofSeesAHealedCut: the partition's proof is no formality: once
// the rules are gone, proving the same fault again fails.
func TestProofSeesAHealedCut(t *testing.T) {
	env, c, _ := newFakeEnv()
	f, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FPartition, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{2}}})
	if err := env.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if _, _, err := healPartitions(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	_, err := f.(nemesis.Prover).Prove(context.Background(), env)
	if err == nil || !strings.Contains(err.Error(), "node 2 still reaches cut peer 0 (open)") {
		t.Errorf("proof after the heal: %v", err)
	}
	_ = c
}

// hidden is a backend that has none of the optional capabilities (the
// SSH backend's position): only cluster.Nodes.
type hidden struct{ cluster.Nodes }

// withoutOptional is the SSH backend's set: none of the optional
// capabilities.
var withoutOptional = cluster.NewCaps(cluster.CapPartition, cluster.CapPause, cluster.CapKill, cluster.CapPowerLoss)

func (hidden) Capabilities() cluster.Caps { return withoutOptional }

func TestRefusedWithoutCapability(t *testing.T) {
	for _, tc := range []struct {
		step nemesis.Step
		want string
	}{
		{nemesis.Step{Fault: histories.FCutClients, Target: &nemesis.Target{Role: nemesis.RoleLeader}}, "cannot cut clients: the backend does not say which address"},
		{nemesis.Step{Fault: histories.FNetem, Params: &NetemParams{Shape: nemesis.ShapeRacks, Netem: &nemesis.NetemSpec{Delay: nemesis.Duration(50 * time.Millisecond)}}}, "netem is refused"},
		{nemesis.Step{Fault: histories.FNetem, Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &NetemParams{Shape: ShapeClients, Netem: &nemesis.NetemSpec{Rate: "1mbit"}}}, "netem is refused"},
	} {
		env, c, _ := newFakeEnv()
		env.Cluster = hidden{c}
		f, err := nemesis.NewFault(tc.step)
		if err != nil {
			t.Fatal(err)
		}
		err = env.Inject(context.Background(), f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on a backend without the capability: %v, want %q", tc.step.Fault, err, tc.want)
		}
		for _, id := range env.AllNodes() {
			if c.RuleCount(id) != 0 || c.Net.TC[id] != nil {
				t.Errorf("node %d changed by a refused fault", id)
			}
		}
	}
}

// execSpy is a backend without the optional capabilities that records
// the commands run on it.
type execSpy struct {
	cluster.Nodes
	cmds []string
}

func (s *execSpy) Capabilities() cluster.Caps { return withoutOptional }

func (s *execSpy) Exec(ctx context.Context, id int32, cmd ...string) (string, error) {
	s.cmds = append(s.cmds, strings.Join(cmd, " "))
	return s.Nodes.Exec(ctx, id, cmd...)
}

// TestNoTCWhereNetemIsRefused: on a backend where netem is refused (SSH),
// the heals never run tc (its hosts may not have it), so a final heal
// there is what it was before netem existed.
func TestNoTCWhereNetemIsRefused(t *testing.T) {
	env, c, _ := newFakeEnv()
	spy := &execSpy{Nodes: c}
	env.Cluster = spy
	if err := (&nemesis.Runner{Env: env, HealTimeout: time.Second}).Run(context.Background(), nemesis.Schedule{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Heal(context.Background(), histories.FNetem, time.Second); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range spy.cmds {
		if strings.HasPrefix(cmd, "tc ") || strings.Contains(cmd, "\ntc ") {
			t.Errorf("ran %q on a backend without netem", cmd)
		}
	}
	if len(spy.cmds) == 0 {
		t.Error("no command at all: the spy sees nothing")
	}
}

// TestPartitionProofStacked: a second partition while a first still holds
// proves itself: the control avoids the peers the first one cuts.
func TestPartitionProofStacked(t *testing.T) {
	env, _, _ := newFakeEnv()
	ctx := context.Background()
	first, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FPartition, Params: &PartitionParams{Shape: nemesis.ShapeGroups, Groups: [][]int32{{1000}, {1}}}})
	if err := env.Inject(ctx, first); err != nil {
		t.Fatal(err)
	}
	second, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FPartition, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}})
	if err := env.Inject(ctx, second); err != nil {
		t.Fatalf("second partition: %v", err)
	}
	p, err := second.(nemesis.Prover).Prove(ctx, env)
	if err != nil || fmt.Sprint(p["control"]) != "[1->2 open 2->1000 open 1000->2 open]" {
		t.Errorf("proof %v, %v", p, err)
	}
}

// TestQuorumShapes: from-voters cuts the targeted controllers from the
// other controllers only (the brokers keep both sides); from-brokers cuts
// them from the brokers only. Brokers as targets are refused.
func TestQuorumShapes(t *testing.T) {
	full := quorum(1001, []int32{1000, 1001, 1002}, []int32{0, 1, 2})
	for _, tc := range []struct {
		name, shape string
		target      nemesis.Target
		want        string
		err         string
	}{
		{"active from voters", nemesis.ShapeFromVoters, nemesis.Target{Role: nemesis.RoleActiveController}, "map[1000:[1001] 1001:[1000 1002] 1002:[1001]]", ""},
		{"active from brokers", nemesis.ShapeFromBrokers, nemesis.Target{Role: nemesis.RoleActiveController}, "map[0:[1001] 1:[1001] 2:[1001] 1001:[0 1 2]]", ""},
		{"followers from voters", nemesis.ShapeFromVoters, nemesis.Target{Role: nemesis.RoleControllerFollowers}, "map[1000:[1001] 1001:[1000 1002] 1002:[1001]]", ""},
		{"explicit ids", nemesis.ShapeFromVoters, nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1002}}, "map[1000:[1002] 1001:[1002] 1002:[1000 1001]]", ""},
		{"brokers refused", nemesis.ShapeFromVoters, nemesis.Target{Role: nemesis.RoleObservers}, "", "are brokers, not controllers"},
		{"every voter", nemesis.ShapeFromVoters, nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1000, 1001, 1002}}, "", "no node to cut"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := newQuorumEnv(full)
			g, err := (&partitionFault{shape: tc.shape, target: &tc.target}).grudge(context.Background(), env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || fmt.Sprint(g) != tc.want {
				t.Fatalf("got %v %v, want %s", g, err, tc.want)
			}
		})
	}
}

// TestPartitionFromVotersProved: the from-voters cut installs on the
// controllers and its proof passes on the fake network, with the brokers
// untouched.
func TestPartitionFromVotersProved(t *testing.T) {
	env, c, _ := newQuorumEnv(quorum(1001, []int32{1000, 1001, 1002}, []int32{0, 1, 2}))
	f := &partitionFault{shape: nemesis.ShapeFromVoters, target: &nemesis.Target{Role: nemesis.RoleActiveController}}
	if err := env.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.touched) != "[1000 1001 1002]" {
		t.Errorf("touched %v, want the three controllers", f.touched)
	}
	for _, b := range []int32{0, 1, 2} {
		if len(c.Rules[b]) > 0 {
			t.Errorf("broker %d got rules %v", b, c.Rules[b])
		}
	}
}

// TestShareCoordinatorLeaderFollowers: shape leader-followers with role
// share-coordinator cuts the coordinator from the other brokers (its
// __share_group_state partition's followers), the controller and clients
// kept; a coordinator it cannot find is the step's error.
func TestShareCoordinatorLeaderFollowers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		coord int32
		err   error
		want  grudge
		wantE string
	}{
		{"coordinator 2", 2, nil, grudge{2: {0, 1}, 0: {2}, 1: {2}}, ""},
		{"coordinator 0", 0, nil, grudge{0: {1, 2}, 1: {0}, 2: {0}}, ""},
		{"not found", 0, errors.New("COORDINATOR_NOT_AVAILABLE"), nil, "COORDINATOR_NOT_AVAILABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			env.ShareGroup = "q"
			env.Admin = &shareAdmin{fakeAdmin: a, coord: tc.coord, err: tc.err}
			g, err := (&partitionFault{shape: nemesis.ShapeLeaderFollowers, target: &nemesis.Target{Role: nemesis.RoleShareCoordinator}}).grudge(context.Background(), env)
			if tc.wantE != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantE) {
					t.Fatalf("error %v, want %q", err, tc.wantE)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(g, tc.want) {
				t.Fatalf("grudge %v (%v), want %v", g, err, tc.want)
			}
		})
	}
}
