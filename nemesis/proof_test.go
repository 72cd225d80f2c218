package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

func TestParseProbe(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want Reach
		err  bool
	}{
		{"rc=0 \n", ReachOpen, false},
		{"rc=124 \n", ReachDropped, false},
		{"rc=1 bash: connect: Connection refused\nbash: line 1: /dev/tcp/10.0.0.2/9092: Connection refused\n", ReachRefused, false},
		{"rc=1 bash: connect: Operation not permitted", ReachDropped, false},
		{"rc=1 bash: connect: No route to host", ReachUnreachable, false},
		{"rc=1 bash: connect: Network is unreachable", ReachUnreachable, false},
		{"rc=127 sh: 1: bash: not found", "", true},
		{"OCI runtime exec failed", "", true},
	} {
		got, err := parseProbe(tc.out)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("parseProbe(%q) = %q, %v; want %q, error %v", tc.out, got, err, tc.want, tc.err)
		}
	}
}

// proofOf returns the details.proof of the last completion of f.
func proofOf(t *testing.T, evs []histories.Event, f string) (histories.Event, map[string]any) {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].F == f && evs[i].Type != histories.Invoke {
			var v histories.NemesisValue
			if err := evs[i].Decode(&v); err != nil {
				t.Fatal(err)
			}
			p, _ := v.Details["proof"].(map[string]any)
			return evs[i], p
		}
	}
	t.Fatalf("no completion of %s", f)
	return histories.Event{}, nil
}

// TestProofsRecorded: partition, pause and kill each record a proof that
// they hold in their ok op, probed through the fake's rules and states.
func TestProofsRecorded(t *testing.T) {
	s := Schedule{Steps: []Step{
		{Fault: histories.FPartition, Target: &Target{Role: RoleNodes, Nodes: []int32{0}}},
		{Fault: histories.FPause, Target: &Target{Role: RoleNodes, Nodes: []int32{1}}},
		{Fault: histories.FKill, Target: &Target{Role: RoleNodes, Nodes: []int32{2}}},
	}}
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), s)
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	for _, tc := range []struct{ f, key, want string }{
		// Node 0 is cut from everyone; its peers from it alone, and each
		// has an uncut peer for the control.
		{histories.FPartition, "cut", "[0->1 dropped 1->0 dropped 2->0 dropped 1000->0 dropped]"},
		{histories.FPartition, "control", "[1->1000 open 2->1000 open 1000->1 open]"},
		{histories.FPause, "frozen", "[1: paused, 10.9.0.21:9092 accepts TCP but no answer to ApiVersions in 1s]"},
		{histories.FKill, "stopped", "[2: not running (exit 137), 10.9.0.22:9092 unreachable]"},
	} {
		ev, p := proofOf(t, evs, tc.f)
		if ev.Type != histories.OK || fmt.Sprint(p[tc.key]) != tc.want {
			t.Errorf("%s %s: proof %s = %v, want %s", tc.f, ev.Type, tc.key, p[tc.key], tc.want)
		}
		if _, ok := p["took_ms"]; !ok {
			t.Errorf("%s: proof without took_ms: %v", tc.f, p)
		}
	}
}

// TestNoEffectFailsScripted: a fault whose injection the cluster accepts
// but which does not hold fails its step (info op, the proof's finding as
// the error), stops a scripted schedule, and the final heal still runs.
func TestNoEffectFailsScripted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		step  Step
		setup func(*fakeCluster)
		want  string
	}{
		{"tc accepted but installs nothing", Step{Fault: histories.FNetem, Params: &NetemParams{Shape: ShapeLeaderFollowers, Netem: &NetemSpec{Rate: "1mbit"}}},
			func(c *fakeCluster) { c.net.ignoreTC = true }, "the kernel does not show class ca05:1"},
		{"paused node still answers", Step{Fault: histories.FPause, Target: &Target{Role: RoleLeader}},
			func(c *fakeCluster) { c.net.answerPaused = true }, "node 0 answered a Kafka request while paused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Schedule{Steps: []Step{tc.step, {Wait: Duration(time.Hour)}}}
			var runErr error
			evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
				tc.setup(c)
				runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), s)
				healthy(t, env, c)
			})
			var ne *NoEffectError
			if !errors.As(runErr, &ne) || !strings.Contains(runErr.Error(), "step 0") || !strings.Contains(runErr.Error(), tc.want) {
				t.Fatalf("run error %v, want step 0's no effect: %s", runErr, tc.want)
			}
			ev, p := proofOf(t, evs, tc.step.Fault)
			if ev.Type != histories.Info || !strings.HasPrefix(ev.Error, "no effect: ") || !strings.Contains(ev.Error, tc.want) || p == nil {
				t.Errorf("op %s error %q proof %v", ev.Type, ev.Error, p)
			}
			if got := strings.Fields(summary(evs)); !strings.HasPrefix(got[len(got)-1], "heal:ok") {
				t.Errorf("history %s: want the final heal last", got)
			}
		})
	}
}

// TestNoEffectRandomGoesOnAndFails: a random schedule goes on past a fault
// that did not take effect, as past any failed step, but Run reports it,
// so the run cannot pass as if the fault had held.
func TestNoEffectRandomGoesOnAndFails(t *testing.T) {
	s := Schedule{Random: &RandomSchedule{Seed: 1, Interval: Duration(10 * time.Millisecond),
		Duration: Duration(40 * time.Millisecond), Faults: []string{histories.FPause}}}
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		c.net.answerPaused = true
		runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), s)
	})
	var ne *NoEffectError
	if !errors.As(runErr, &ne) {
		t.Fatalf("run error %v, want the no-effect pauses", runErr)
	}
	n := 0
	for _, e := range evs {
		if e.F == histories.FPause && e.Type == histories.Info {
			n++
		}
	}
	if n < 2 || strings.Count(runErr.Error(), "no effect") != n {
		t.Errorf("%d pauses without effect, error %v: want the schedule to go on and report each", n, runErr)
	}
}

// TestProofSeesAHealedCut: the partition's proof is no formality: once
// the rules are gone, proving the same fault again fails.
func TestProofSeesAHealedCut(t *testing.T) {
	env, c, _ := newFakeEnv()
	f, _ := NewFault(Step{Fault: histories.FPartition, Target: &Target{Role: RoleNodes, Nodes: []int32{2}}})
	if err := env.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.healPartitions(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := f.(Prover).Prove(context.Background(), env)
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
		step Step
		want string
	}{
		{Step{Fault: histories.FCutClients, Target: &Target{Role: RoleLeader}}, "cannot cut clients: the backend does not say which address"},
		{Step{Fault: histories.FNetem, Params: &NetemParams{Shape: ShapeRacks, Netem: &NetemSpec{Delay: Duration(50 * time.Millisecond)}}}, "netem is refused"},
		{Step{Fault: histories.FNetem, Target: &Target{Role: RoleLeader}, Params: &NetemParams{Shape: ShapeClients, Netem: &NetemSpec{Rate: "1mbit"}}}, "netem is refused"},
	} {
		env, c, _ := newFakeEnv()
		env.Cluster = hidden{c}
		f, err := NewFault(tc.step)
		if err != nil {
			t.Fatal(err)
		}
		err = env.Inject(context.Background(), f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on a backend without the capability: %v, want %q", tc.step.Fault, err, tc.want)
		}
		for _, id := range env.AllNodes() {
			if c.ruleCount(id) != 0 || c.net.tc[id] != nil {
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
	if err := (&Runner{Env: env, HealTimeout: time.Second}).Run(context.Background(), Schedule{}); err != nil {
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
	first, _ := NewFault(Step{Fault: histories.FPartition, Params: &PartitionParams{Shape: ShapeGroups, Groups: [][]int32{{1000}, {1}}}})
	if err := env.Inject(ctx, first); err != nil {
		t.Fatal(err)
	}
	second, _ := NewFault(Step{Fault: histories.FPartition, Target: &Target{Role: RoleNodes, Nodes: []int32{0}}})
	if err := env.Inject(ctx, second); err != nil {
		t.Fatalf("second partition: %v", err)
	}
	p, err := second.(Prover).Prove(ctx, env)
	if err != nil || fmt.Sprint(p["control"]) != "[1->2 open 2->1000 open 1000->2 open]" {
		t.Errorf("proof %v, %v", p, err)
	}
}
