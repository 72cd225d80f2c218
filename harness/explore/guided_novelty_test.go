package explore

import "testing"

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
