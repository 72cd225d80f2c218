package explore

import (
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
)

// weakUntargeted is examples/compare/weak-untargeted.yaml made
// explorable: the config the strategies were measured on (RF 3,
// min.insync.replicas 1, two partitions, cut, kill, pause and power loss
// drawn untargeted).
func weakUntargeted(t *testing.T) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load("../../examples/compare/weak-untargeted.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Explorable(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// measuredHistory is the coverage of two 4-run explorations of
// weak-untargeted on Kafka 4.4.0 (docs/measured/strategies, seed 1 of
// each strategy), as one exploration's history.
func measuredHistory(t *testing.T) []*states.Coverage {
	t.Helper()
	var out []*states.Coverage
	for _, s := range []string{"guided", "random"} {
		c, err := states.Read("testdata/weak-untargeted-" + s + "-seed1.coverage.json")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// state is a state's text with the given ISR and leader, the rest
// healthy.
func state(isr, leader string) string {
	return states.State{ISR: isr, Leader: leader, ELR: states.ELREmpty, Election: states.ElectionNone, Truncation: states.TruncNone,
		Quorum: states.Unknown, Coordinator: states.Unknown}.String()
}

// TestGuidedStrikable: in each state a strike at the followers has one
// aim (every follower or one where the ISR is full, the replicas out of
// it where it is not), and an aim that needs a leader is not aimed where
// the partition may have none; a state never reached is judged by what
// the strikes that hold say.
func TestGuidedStrikable(t *testing.T) {
	byArm := map[string]candidate{}
	for _, c := range candidates(*weakUntargeted(t).Nemesis.Random, 0, isrShape{3, 1}) {
		if c.fault == "kill" || c.name == "partition-leader-followers" {
			byArm[c.name+"@"+c.armRole] = c
		}
	}
	shrunk, leaderless := effects{shrunk: true}, effects{shrunk: true, leaderless: true}
	for _, c := range []struct {
		name  string
		state string
		fx    effects
		want  []string
	}{
		{"healthy", state(states.ISRFull, states.LeaderAlive), effects{},
			[]string{"kill@follower", "kill@followers", "kill@leader", "partition-leader-followers@leader"}},
		{"the ISR at min, once a cut acted", state(states.ISRAtMin, states.LeaderAlive), shrunk,
			[]string{"kill@leader", "kill@out-of-isr", "partition-leader-followers@leader"}},
		{"the ISR at min, nothing holding that shrank it", state(states.ISRAtMin, states.LeaderAlive), effects{},
			[]string{"kill@leader", "partition-leader-followers@leader"}},
		{"full, though a strike holds", state(states.ISRFull, states.LeaderAlive), shrunk,
			[]string{"kill@follower", "kill@followers", "kill@leader", "partition-leader-followers@leader"}},
		{"offline", state(states.ISRAtMin, states.LeaderOffline), shrunk, []string{"kill@out-of-isr"}},
		{"never reached, nothing holds", "after kill@leader from x", effects{},
			[]string{"kill@follower", "kill@followers", "kill@leader", "partition-leader-followers@leader"}},
		{"never reached, a strike shrank it", "after kill@followers from x", shrunk,
			[]string{"kill@leader", "kill@out-of-isr", "partition-leader-followers@leader"}},
		{"never reached, the leader may be gone", "after kill@leader from x", leaderless, []string{"kill@out-of-isr"}},
		{"the replicas out of the ISR may be down", state(states.ISRAtMin, states.LeaderAlive), effects{shrunk: true, down: true},
			[]string{"kill@leader", "partition-leader-followers@leader"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for arm, cand := range byArm {
				if strikable(cand, c.state, c.fx) {
					got = append(got, arm)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("strikable %v, want %v", got, c.want)
			}
		})
	}
}

// TestGuidedArmRoles: coverage names a strike at one follower and one at
// every follower alike (followers); the ISR a strike from a full one left
// tells them apart, and a transition that shows neither counts for both,
// so that neither arm stays untried for want of evidence.
func TestGuidedArmRoles(t *testing.T) {
	full, above, atMin := state(states.ISRFull, states.LeaderAlive), state("above-min", states.LeaderAlive), state(states.ISRAtMin, states.LeaderAlive)
	for _, c := range []struct {
		name          string
		shape         isrShape
		role          string
		before, after string
		want          []string
	}{
		{"one follower struck", isrShape{3, 1}, states.RoleFollowers, full, above, []string{aimFollower}},
		{"every follower struck", isrShape{3, 1}, states.RoleFollowers, full, atMin, []string{aimFollowers}},
		{"min.insync.replicas 2: one follower leaves it at min", isrShape{3, 2}, states.RoleFollowers, full, atMin, []string{aimFollower}},
		{"no shrink seen yet", isrShape{3, 1}, states.RoleFollowers, full, full, []string{aimFollowers, aimFollower}},
		{"from a shrunk ISR", isrShape{3, 1}, states.RoleFollowers, above, atMin, []string{aimFollowers}},
		{"RF 2: no one-follower aim", isrShape{2, 1}, states.RoleFollowers, full, atMin, []string{aimFollowers}},
		{"out of the ISR", isrShape{3, 1}, states.RoleOutOfISR, atMin, atMin, []string{aimOutOfISR}},
		{"some of both", isrShape{3, 1}, states.RoleFollowers + "+" + states.RoleOutOfISR, above, atMin, []string{aimFollowers}},
		{"the leader", isrShape{3, 1}, states.RoleLeader, full, above, []string{aimLeader}},
		{"a cut by role", isrShape{3, 1}, "links-of-leader", full, atMin, []string{aimLeader}},
		{"the leader and others", isrShape{3, 1}, states.RoleLeaderPlus, full, atMin, []string{anyRole}},
		{"none: the targets were down", isrShape{3, 1}, states.RoleNone, atMin, atMin, []string{aimFollowers, aimFollower, aimOutOfISR}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.shape.armRoles(states.Covered{Before: c.before, Fault: "kill", Role: c.role, After: c.after, Count: 1})
			if !slices.Equal(got, c.want) {
				t.Errorf("arms %v, want %v", got, c.want)
			}
		})
	}
}

// TestGuidedRecordedHistory: over the coverage real explorations reached,
// the guided schedule strikes the arms they left untried in states that
// are not healthy (a shrunk ISR, after an election, or never reached),
// strikes a third fault past the first's heal or with both holding, and
// strikes the replicas out of the ISR, an aim the old schedules lacked.
// (One follower it leaves: in this two-partition topic a strike at
// partition 0's leader is one at a follower of partition 1, and the
// recorded coverage credits those arms already.)
func TestGuidedRecordedHistory(t *testing.T) {
	base, hist := weakUntargeted(t), measuredHistory(t)
	moments, aims := map[string]bool{}, map[string]bool{}
	for seed := int64(1); seed <= 10; seed++ {
		g, err := Guide(base, seed, hist)
		if err != nil {
			t.Fatal(err)
		}
		unhealthy := false
		for _, c := range g.Choices {
			moments[c.Moment] = true
			aims[c.Role+strings.Repeat("[1]", c.Count)] = true
			st, err := states.Parse(c.State)
			if c.Untried && (err != nil || st.ISR != states.ISRFull || st.Election != states.ElectionNone) {
				unhealthy = true
			}
		}
		if !unhealthy {
			t.Errorf("seed %d: no untried arm of a state that is not healthy: %s", seed, choicesText(g.Choices))
		}
	}
	if !moments["after-heal"] && !moments["third"] {
		t.Errorf("moments %v: no third strike", moments)
	}
	if !aims["out-of-isr"] {
		t.Errorf("aims %v: out-of-isr never struck", aims)
	}
}

// TestGuidedShapesDeterministic: the schedules with a third strike, a
// partial heal and one-follower aims are the same for the same seed and
// history (byte for byte), load as scripted scenarios, and end with the
// last episode's heals (the final heal follows; no quiet before it).
func TestGuidedShapesDeterministic(t *testing.T) {
	base, hist := weakUntargeted(t), measuredHistory(t)
	extended := 0
	for seed := int64(1); seed <= 10; seed++ {
		a := guideTwice(t, base, seed, hist)
		if slices.ContainsFunc(a.Choices, func(c Choice) bool { return c.Moment == "after-heal" || c.Moment == "third" }) {
			extended++
		}
		steps := a.Scenario.Nemesis.Steps
		if last := steps[len(steps)-1]; last.Heal == "" {
			t.Errorf("seed %d: the schedule ends with %+v, not a heal", seed, last)
		}
		for i, st := range steps {
			if st.Until != nil && (!st.Optional || st.Timeout <= 0) {
				t.Errorf("seed %d step %d: an until that may fail the run: %+v", seed, i, st)
			}
		}
	}
	if extended == 0 {
		t.Error("no schedule of 10 seeds has a third strike")
	}
}

// TestGuidedPlanFits: the planned episodes stay within the random
// section's duration, each wait counted at its nominal length (planner),
// unless a single episode is all there is; a longer duration holds more
// strikes.
func TestGuidedPlanFits(t *testing.T) {
	base := weakUntargeted(t)
	long := *base
	rs := *base.Nemesis.Random
	rs.Duration *= 3
	long.Nemesis.Random = &rs
	strikes := map[string]int{}
	for _, c := range []struct {
		name string
		base *scenario.Scenario
		hist []*states.Coverage
	}{
		{"fresh", base, nil},
		{"measured history", base, measuredHistory(t)},
		{"fresh, 120 s", &long, nil},
		{"measured history, 120 s", &long, measuredHistory(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := int64(1); seed <= 5; seed++ {
				p, err := newPlanner(c.base, seed, c.hist)
				if err != nil {
					t.Fatal(err)
				}
				p.plan()
				firsts := 0
				for _, ch := range p.choices {
					if ch.Moment == "first" {
						firsts++
					}
				}
				if p.left < 0 && firsts > 1 {
					t.Errorf("seed %d: %d episodes overrun the duration by %s", seed, firsts, -p.left)
				}
				if firsts < 2 {
					t.Errorf("seed %d: %d episodes in %s", seed, firsts, c.base.Nemesis.Random.Duration)
				}
				strikes[c.name] += len(p.choices)
			}
		})
	}
	if strikes["fresh, 120 s"] <= strikes["fresh"] || strikes["measured history, 120 s"] <= strikes["measured history"] {
		t.Errorf("strikes %v: a longer duration holds no more", strikes)
	}
}
