package nemesis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// scriptedChooser returns its batches in turn, recording what it was
// told was played before each.
type scriptedChooser struct {
	batches [][]Step
	told    []int
}

func (c *scriptedChooser) Next(_ context.Context, _ *Env, played []Step) []Step {
	c.told = append(c.told, len(played))
	if len(c.batches) == 0 {
		return nil
	}
	b := c.batches[0]
	c.batches = c.batches[1:]
	return b
}

// TestRunnerLive: a live schedule plays what its chooser returns, batch
// by batch, tells it what was played, goes on past a strike that fails
// (as a random schedule does), records the schedule op as live, keeps
// Played for the replay, and heals at the end; a step built wrong ends
// the schedule with an error naming it; Live beside steps is refused.
func TestRunnerLive(t *testing.T) {
	kill := Step{Fault: "kill", Target: &Target{Role: RoleLeader}}
	wait := Step{Wait: Duration(time.Millisecond)}
	stray := Step{Fault: "kill", Target: &Target{Role: RoleNodes, Nodes: []int32{42}}} // no such node: fails
	heal := Step{Heal: "kill"}
	for _, tc := range []struct {
		name    string
		batches [][]Step
		played  int
		told    []int
		err     string
	}{
		{name: "two batches, a failed strike between", batches: [][]Step{{kill, wait}, {stray}, {heal}}, played: 4, told: []int{0, 2, 3, 4}},
		{name: "a step built wrong", batches: [][]Step{{kill}, {{Wait: Duration(time.Millisecond), Heal: "kill"}}}, played: 1, told: []int{0, 1},
			err: "nemesis.live[1]"},
		{name: "an until on the struck nodes before any strike", batches: [][]Step{{{Until: &Condition{Struck: "fenced"}}}}, played: 0, told: []int{0},
			err: "no fault step before this until"},
		{name: "nothing chosen", played: 0, told: []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &scriptedChooser{batches: tc.batches}
			var r *Runner
			var runErr error
			evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
				r = &Runner{Env: env, HealTimeout: 2 * time.Second}
				runErr = r.Run(context.Background(), Schedule{Live: ch})
				healthy(t, env, c)
			})
			if (runErr == nil) != (tc.err == "") || runErr != nil && !strings.Contains(runErr.Error(), tc.err) {
				t.Fatalf("Run: %v, want error %q", runErr, tc.err)
			}
			if len(r.Played) != tc.played {
				t.Errorf("played %d steps, want %d: %+v", len(r.Played), tc.played, r.Played)
			}
			if len(ch.told) != len(tc.told) {
				t.Fatalf("chooser asked %v times, want %v", ch.told, tc.told)
			}
			for i := range tc.told {
				if ch.told[i] != tc.told[i] {
					t.Errorf("chooser told %v played, want %v", ch.told, tc.told)
				}
			}
			var mode any
			for _, e := range evs {
				if e.F == histories.FSchedule && e.Type == histories.OK {
					var v histories.NemesisValue
					_ = e.Decode(&v)
					mode = v.Details["mode"]
				}
			}
			if mode != "live" {
				t.Errorf("schedule op's mode %v, want live", mode)
			}
		})
	}
	if err := (&Schedule{Live: &scriptedChooser{}, Steps: []Step{kill}}).Validate(); err == nil || !strings.Contains(err.Error(), "a live schedule has no steps") {
		t.Errorf("live beside steps: %v", err)
	}
}
