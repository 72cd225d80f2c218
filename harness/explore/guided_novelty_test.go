package explore

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/explore/states"
)

// TestGuidedAlone: only a strike that isolates the leader (a cut from its
// followers, a broker fault on every follower) leaves the ISR possibly
// the leader alone, so that taking the leader then may leave the
// partition with none (no third strike, and the wait is for it going
// offline); one follower struck leaves the other in the ISR, and the
// leader taken then is replaced cleanly.
func TestGuidedAlone(t *testing.T) {
	byArm := map[string]candidate{}
	for _, c := range candidates(*weakUntargeted(t).Nemesis.Random, 0, isrShape{3, 1}) {
		byArm[c.name+"@"+c.armRole] = c
	}
	for _, c := range []struct {
		name        string
		first, then string
		alone       bool
	}{
		{"a cut of the leader from its followers", "partition-leader-followers@leader", "kill@leader", true},
		{"every follower killed", "kill@followers", "pause@leader", true},
		{"every follower paused", "pause@followers", "lose-unflushed@leader", true},
		{"one follower killed", "kill@follower", "pause@leader", false},
		{"one follower powered off", "lose-unflushed@follower", "kill@leader", false},
		{"the leader paused", "pause@leader", "kill@out-of-isr", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, then := byArm[c.first], byArm[c.then]
			if first.name == "" || then.name == "" {
				t.Fatalf("no candidate %s or %s", c.first, c.then)
			}
			fx := effectsOf([]held{{c: first}})
			if fx.alone != c.alone {
				t.Errorf("effects %+v, want alone %v", fx, c.alone)
			}
			leaderless := then.takesLeader() && fx.alone
			if got := effectsOf([]held{{c: first}, {c: then, leaderless: leaderless}}).leaderless; got != (c.alone && then.takesLeader()) {
				t.Errorf("%s then %s: leaderless %v", c.first, c.then, got)
			}
			want := "wait 5s"
			if c.alone && then.takesLeader() {
				want = "until partition 0 offline true optional 5s; wait 2s"
			}
			if got := stepsText(settle(then, nil, partitionAt{0, []int32{0, 1, 2}}, waitsOf(weakUntargeted(t)), fx.alone)); then.takesLeader() && got != want {
				t.Errorf("%s after %s settles %q, want %q", c.then, c.first, got, want)
			}
		})
	}
}

// TestGuidedHeals: an episode's heals are transitions the bandit orders
// (an untried heal in the state it starts from first, a seeded draw
// between untried ones), and each heal but the last gets the margin to
// act where the time spares it: not where it would cost the next
// episode its strike.
func TestGuidedHeals(t *testing.T) {
	base := weakUntargeted(t)
	s := state(states.ISRAtMin, states.LeaderAlive)
	pausedFirst := &states.Coverage{Runs: 1, Transitions: []states.Covered{
		{Before: s, Fault: "heal-pause", Role: states.RoleOutOfISR, After: state("above-min", states.LeaderAlive), Count: 1}}}
	heals := func(seed int64, hist []*states.Coverage, left time.Duration) string {
		p, err := newPlanner(base, seed, hist)
		if err != nil {
			t.Fatal(err)
		}
		var hs []held
		for _, c := range p.cands {
			if c.name == "pause" && c.armRole == aimFollowers || c.name == "kill" && c.armRole == aimOutOfISR {
				hs = append(hs, held{c: c})
			}
		}
		p.left = left
		p.heal(hs, s)
		var out []string
		for _, st := range p.steps {
			switch {
			case st.Heal != "":
				out = append(out, st.Heal)
			case st.Wait > 0:
				out = append(out, "wait "+st.Wait.String())
			}
		}
		return strings.Join(out, "; ")
	}
	w := waitsOf(base)
	next := base.Nemesis.Random.Quiet.Std() + max(w.ISRShrink, w.Fence)
	for _, c := range []struct {
		name string
		hist []*states.Coverage
		left time.Duration
		want []string // the orders seen over seeds 1-10
	}{
		{"no history: both orders, spaced", nil, time.Minute, []string{"kill; wait 2s; pause", "pause; wait 2s; kill"}},
		{"pause healed from there before: kill first", []*states.Coverage{pausedFirst}, time.Minute, []string{"kill; wait 2s; pause"}},
		{"the margin would cost the next episode", []*states.Coverage{pausedFirst}, next, []string{"kill; pause"}},
		{"no next episode either way", []*states.Coverage{pausedFirst}, next - time.Second, []string{"kill; wait 2s; pause"}},
		{"nothing left", []*states.Coverage{pausedFirst}, time.Second, []string{"kill; pause"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			seen := map[string]bool{}
			for seed := int64(1); seed <= 10; seed++ {
				seen[heals(seed, c.hist, c.left)] = true
			}
			if got := slices.Sorted(maps.Keys(seen)); !slices.Equal(got, c.want) {
				t.Errorf("heals %q, want %q", got, c.want)
			}
		})
	}
}
