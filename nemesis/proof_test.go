package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

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
		{"tc accepted but installs nothing", stepOf(t, "{fault: netem, shape: leader-followers, netem: {rate: 1mbit}}"),
			func(c *fakeCluster) { c.Net.IgnoreTC = true }, "the kernel does not show class ca05:1"},
		{"paused node still answers", Step{Fault: histories.FPause, Target: &Target{Role: RoleLeader}},
			func(c *fakeCluster) { c.Net.AnswerPaused = true }, "node 0 answered a Kafka request while paused"},
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
		c.Net.AnswerPaused = true
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
