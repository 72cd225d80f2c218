package explore

import (
	"context"
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
// leader taken then is replaced cleanly (the wait is for its fencing).
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
			// Not alone: the wait is for the leader's fencing, on the
			// node struck (its id unknown here).
			want := "until the last fault's nodes fenced optional 5s; wait 2s"
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

// TestGuidedLossEnd: a sequence loss is struck to its end where a strike
// took the leader (a broker fault at it, a cut of it from everyone) from
// an ISR of it alone and left the partition offline, its leader fenced,
// an unclean election or a new truncation; no other transition ends the
// sequence-loss prior.
func TestGuidedLossEnd(t *testing.T) {
	st := func(isr, leader, election, trunc string) string {
		return states.State{ISR: isr, Leader: leader, ELR: states.ELREmpty, Election: election, Truncation: trunc,
			Quorum: states.Unknown, Coordinator: states.Unknown}.String()
	}
	alone := st(states.ISRAtMin, states.LeaderAlive, states.ElectionNone, states.TruncNone)
	for _, c := range []struct {
		name          string
		shape         isrShape
		before, fault string
		role, after   string
		want          bool
	}{
		{"recorded: kill the leader alone, unclean", isrShape{3, 1}, alone, "kill", states.RoleLeader,
			st("above-min", states.LeaderAlive, states.ElectionUnclean, states.TruncSeen), true},
		{"recorded: power loss of the leader alone, fenced", isrShape{3, 1}, alone, "lose-unflushed", states.RoleLeader,
			st(states.ISRAtMin, states.LeaderFenced, states.ElectionNone, states.TruncNone), true},
		{"pause the leader alone, offline", isrShape{3, 1}, alone, "pause", states.RoleLeader,
			st(states.ISRAtMin, states.LeaderOffline, states.ElectionNone, states.TruncNone), true},
		{"a truncation the state before lacked", isrShape{3, 1}, alone, "kill", states.RoleLeader,
			st("above-min", states.LeaderAlive, states.ElectionNone, states.TruncSeen), true},
		{"cut the leader from everyone", isrShape{3, 1}, alone, "partition", "links-of-leader",
			st(states.ISRAtMin, states.LeaderOffline, states.ElectionNone, states.TruncNone), true},
		{"the leader taken from a full ISR", isrShape{3, 1}, st(states.ISRFull, states.LeaderAlive, states.ElectionNone, states.TruncNone),
			"kill", states.RoleLeader, st("above-min", states.LeaderAlive, "clean", states.TruncSeen), false},
		{"the leader taken with a follower in the ISR", isrShape{3, 1}, st("above-min", states.LeaderAlive, states.ElectionNone, states.TruncNone),
			"kill", states.RoleLeader, st(states.ISRAtMin, states.LeaderFenced, states.ElectionNone, states.TruncNone), false},
		{"the leader alone, replaced cleanly", isrShape{3, 1}, alone, "kill", states.RoleLeader,
			st(states.ISRAtMin, states.LeaderAlive, "clean", states.TruncNone), false},
		{"the followers struck, not the leader", isrShape{3, 1}, alone, "pause", states.RoleOutOfISR,
			st(states.ISRAtMin, states.LeaderOffline, states.ElectionUnclean, states.TruncSeen), false},
		{"a leader-followers cut leaves it leading", isrShape{3, 1}, alone, "partition-leader-followers", "links-of-leader",
			st(states.ISRAtMin, states.LeaderOffline, states.ElectionNone, states.TruncNone), false},
		{"a heal", isrShape{3, 1}, alone, "heal-kill", states.RoleLeader,
			st(states.ISRAtMin, states.LeaderAlive, states.ElectionUnclean, states.TruncNone), false},
		{"min.insync.replicas 2: at min is two replicas", isrShape{3, 2}, alone, "kill", states.RoleLeader,
			st(states.ISRAtMin, states.LeaderOffline, states.ElectionNone, states.TruncNone), false},
		{"min.insync.replicas 2: one replica is under min", isrShape{3, 2},
			st("under-min", states.LeaderAlive, states.ElectionNone, states.TruncNone), "kill", states.RoleLeader,
			st("under-min", states.LeaderOffline, states.ElectionNone, states.TruncNone), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := states.Covered{Before: c.before, Fault: c.fault, Role: c.role, After: c.after, Count: 1}
			if got := c.shape.lossEnd(tr); got != c.want {
				t.Errorf("lossEnd = %v, want %v", got, c.want)
			}
		})
	}
	if b := newBandit(1, measuredHistory(t), isrShape{3, 1}); !b.lossStruck {
		t.Error("the recorded explorations struck the loss to its end (kill@leader from at-min, unclean): lossStruck false")
	}
	if b := newBandit(1, nil, isrShape{3, 1}); b.lossStruck {
		t.Error("no history: lossStruck true")
	}
}

// novel are the novel aims and moments among choices: one follower, the
// replicas out of the ISR, a third strike, one after a heal.
func novel(choices []Choice) []string {
	var out []string
	for _, c := range choices {
		for _, n := range []string{
			map[bool]string{true: "one-follower"}[c.Count == 1],
			map[bool]string{true: "out-of-isr"}[c.Role == aimOutOfISR],
			map[bool]string{true: c.Moment}[c.Moment == "third" || c.Moment == "after-heal"],
		} {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestGuidedNovelAfterTheLoss: once the history shows the sequence loss
// struck to its end, the next two runs choose by novelty: each strikes
// one follower, the replicas out of the ISR, a third strike or one after
// a heal, and few of their episodes are the prior's isolate-then-take
// pair (the prior made every episode one). Over the recorded coverage of
// real explorations (the loss's arms tried: kill@leader from at-min,
// unclean), the runs after it simulated by the model; and over a fresh
// exploration of the model, whose first episode strikes the loss.
func TestGuidedNovelAfterTheLoss(t *testing.T) {
	base := weakUntargeted(t)
	model := kafkaModel(t)
	next := func(seed int64, hist []*states.Coverage) (Guided, *states.Coverage) {
		g, err := Guide(base, seed, hist)
		if err != nil {
			t.Fatal(err)
		}
		r, err := model(context.Background(), g.Scenario, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		cov, err := runCoverage(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		return g, cov
	}
	episodes, pairs := 0, 0
	check := func(seed int64, run int, g Guided) {
		t.Helper()
		if len(novel(g.Choices)) == 0 {
			t.Errorf("seed %d run %d: nothing novel: %s", seed, run, choicesText(g.Choices))
		}
		for i, c := range g.Choices {
			if c.Moment != "first" {
				continue
			}
			episodes++
			// The prior's pair: an isolating strike, then, settled, one
			// that takes the leader.
			isolates := c.Count == 0 && (c.Role == aimFollowers || c.Fault == "partition-leader-followers")
			if i+1 < len(g.Choices) && isolates && g.Choices[i+1].Moment == "settled" && g.Choices[i+1].Role == aimLeader &&
				g.Choices[i+1].Fault != "partition-leader-followers" {
				pairs++
			}
		}
	}
	for seed := int64(1); seed <= 10; seed++ {
		hist := measuredHistory(t)
		for run := range 2 {
			g, cov := next(seed*10+int64(run), hist)
			check(seed, run, g)
			hist = append(hist, cov)
		}
		s, _, err := explore(context.Background(), Config{Scenario: base, Runs: 3, Seed: seed, Store: t.TempDir(),
			NoShrink: true, Strategy: StrategyGuided}, model)
		if err != nil {
			t.Fatal(err)
		}
		if ch := s.RunRecords[0].Guided; len(ch) < 2 || ch[0].Fault != "partition-leader-followers" || ch[1].Role != aimLeader {
			t.Errorf("seed %d: a fresh exploration begins %s, not the loss", seed, choicesText(ch))
		}
		for _, r := range s.RunRecords[1:] {
			check(seed, r.Index, Guided{Choices: r.Guided})
		}
	}
	// Novelty may still choose the pair where a state offers little else;
	// the prior chose it in every episode.
	if pairs*4 > episodes {
		t.Errorf("%d of %d episodes are the isolate-then-take pair", pairs, episodes)
	}
	t.Logf("%d of %d episodes are the isolate-then-take pair", pairs, episodes)
}
