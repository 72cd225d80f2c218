package explore

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kchaos/kchaos/harness/explore/states"
)

// bandit is UCB1 over arms (abstract state, fault, aim), learnt
// from an exploration's coverage so far (issue 40: Mallory learnt which
// fault to inject in which state from the states it reached). Every
// transition a run showed is a pull of the arm (its state before, its
// fault, its role), and the first time a transition is seen in the
// exploration it pays 1: the reward is new coverage. An arm never pulled
// scores +Inf, so every fault is tried in every state before any is
// tried twice; after that UCB1 weighs what paid against what was tried
// least, and a novelty term (novelty) what leads to states seen least.
// Ties break on a seeded draw, so the same seed and the same coverage
// history pick the same arms.
type bandit struct {
	pulls, rewards map[armKey]float64
	// atState is the pulls of every arm in a state (UCB1's N).
	atState map[string]float64
	// after counts, per (state, fault, role), each state after: the
	// prediction of where a fault leads.
	after map[armKey]map[string]int
	// befores counts the states faults were injected in; seen counts
	// every state a transition started or ended in.
	befores, seen map[string]int
	// aimPulls sums the pulls of each (fault, aim) over every state: how
	// often the exploration struck that way anywhere (rarity).
	aimPulls map[[2]string]float64
	// lossStruck says some run struck a sequence loss to its end
	// (isrShape.lossEnd): the prior that puts it first has done its job.
	lossStruck bool
	rng        *rand.PCG
}

// armKey is an arm: a state's text, a fault as a mix names it and an aim
// (aim* in aims.go; "" a link fault's default aim; "*" any, for targets
// no role names in advance, such as a random broker).
type armKey struct{ state, fault, role string }

// isrShape is the guided partition's replication factor and
// min.insync.replicas (the scenario's), with which the bandit tells a
// strike at one follower from one at every follower in coverage that
// names both "followers" (states.ISRLevel: the ISR they leave differs).
type isrShape struct{ rf, minISR int }

// oneOfSeveral says whether striking one in-sync follower of a full ISR
// can be told from striking them all: two followers or more, and the
// two leave different ISR levels.
func (sh isrShape) oneOfSeveral() bool {
	return sh.rf >= 3 && states.ISRLevel(sh.rf-1, sh.rf, sh.minISR) != states.ISRLevel(1, sh.rf, sh.minISR)
}

// armRoles are the aims that strike what coverage names t's role: a
// strike at the followers hit in-sync followers (every one, or one:
// coverage names both "followers", so a strike from a full ISR counts for
// aimFollower when it left the ISR one short of full, for aimFollowers
// when it left the leader alone, and for both when its after state shows
// neither, as when the next op came first: an arm whose strikes coverage
// never credited would stay untried, and be drawn, forever), or replicas
// outside the ISR (aimOutOfISR, which is also what a strike at every
// follower hits once they all left), or some of both or an offline
// partition's members (aimFollowers), or none (any of the three: their
// targets were down already); a link fault aimed by role is
// links-of-<role>.
func (sh isrShape) armRoles(t states.Covered) []string {
	switch t.Role {
	case states.RoleLeader, "links-of-leader":
		return []string{aimLeader}
	case states.RoleFollowers:
		if !sh.oneOfSeveral() || isrOf(t.Before) != states.ISRFull {
			return []string{aimFollowers}
		}
		switch isrOf(t.After) {
		case states.ISRLevel(sh.rf-1, sh.rf, sh.minISR):
			return []string{aimFollower}
		case states.ISRLevel(1, sh.rf, sh.minISR):
			return []string{aimFollowers}
		}
		return []string{aimFollowers, aimFollower}
	case states.RoleOutOfISR:
		return []string{aimOutOfISR}
	case states.RoleNone:
		// Nothing struck: every aim at followers finds none there.
		return []string{aimFollowers, aimFollower, aimOutOfISR}
	case states.RoleFollowers + "+" + states.RoleOutOfISR, states.RoleISR, states.RoleELR, "links-of-followers":
		return []string{aimFollowers}
	case states.RoleLinks:
		return []string{""}
	}
	return []string{anyRole}
}

// isrOf is a state's ISR component ("" when the text is no state).
func isrOf(text string) string {
	st, err := states.Parse(text)
	if err != nil {
		return ""
	}
	return st.ISR
}

// anyRole is an arm's role that sums every role of its state and fault.
const anyRole = "*"

// newBandit learns from history, the coverage of each run so far in run
// order.
func newBandit(seed int64, history []*states.Coverage, shape isrShape) *bandit {
	b := &bandit{pulls: map[armKey]float64{}, rewards: map[armKey]float64{}, atState: map[string]float64{},
		after: map[armKey]map[string]int{}, befores: map[string]int{}, seen: map[string]int{}, aimPulls: map[[2]string]float64{},
		rng: rand.NewPCG(uint64(seed), uint64(seed)^0x67756964_65640000)}
	seen := map[string]bool{}
	for _, c := range history {
		if c == nil {
			continue
		}
		for _, t := range c.Transitions {
			n := float64(t.Count)
			b.seen[t.Before] += t.Count
			b.seen[t.After] += t.Count
			var keys []armKey
			for _, r := range append(shape.armRoles(t), anyRole) {
				if !slices.Contains(keys, armKey{t.Before, t.Fault, r}) {
					keys = append(keys, armKey{t.Before, t.Fault, r})
				}
			}
			for _, k := range keys {
				b.pulls[k] += n
				b.aimPulls[[2]string{k.fault, k.role}] += n
				if !seen[t.Key()] {
					b.rewards[k]++
				}
				if b.after[k] == nil {
					b.after[k] = map[string]int{}
				}
				b.after[k][t.After] += t.Count
			}
			seen[t.Key()] = true
			b.lossStruck = b.lossStruck || shape.lossEnd(t)
			b.atState[t.Before] += n
			b.befores[t.Before] += t.Count
		}
	}
	return b
}

// intn is a seeded draw in [0, n): PCG's output by a fixed derivation, so
// that a recorded seed draws the same after a Go upgrade.
func (b *bandit) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(b.rng.Uint64() % uint64(n))
}

// score is an arm's UCB1 score.
func (b *bandit) score(k armKey) float64 {
	n := b.pulls[k]
	total := max(b.atState[k.state], 1)
	if n == 0 {
		return math.Inf(1)
	}
	return b.rewards[k]/n + math.Sqrt(2*math.Log(total)/n)
}

// pull records a pull planned in this run (no reward yet), so that the
// run's later choices prefer other arms.
func (b *bandit) pull(k armKey) {
	b.pulls[k]++
	b.atState[k.state]++
	b.aimPulls[[2]string{k.fault, k.role}]++
}

// rarity orders arms that tie (untried ones all score +Inf, and UCB1's
// bonuses cannot tell them apart: an untried arm predicts nothing) by how
// seldom their fault and aim were struck anywhere in the exploration:
// without it the seeded draw keeps drawing the aims every state offers
// (the leader, every follower) and leaves the rare ones (one follower,
// the replicas out of the ISR) to chance.
func (b *bandit) rarity(k armKey) float64 { return -b.aimPulls[[2]string{k.fault, k.role}] }

// novelty is how rarely the state arm k is predicted to lead to was seen
// (1/sqrt(1+n), 1 for a state never seen or an arm that predicts none):
// once an arm was tried, UCB1 alone keeps drawing the pairs that paid
// early, which lead back to the states every run reaches (healthy, the
// ISR at min after a cut); this term steers toward transitions out of
// states seen least, where new ones are.
func (b *bandit) novelty(k armKey) float64 {
	next := b.predict(k)
	if next == "" {
		return 1
	}
	return 1 / math.Sqrt(1+float64(b.seen[next]))
}

// best is the index of the highest-scoring arm: ties go to the arms of
// the highest order (order nil: all alike), then to a seeded draw.
func (b *bandit) best(arms []armKey, bonus func(int) float64, order func(int) float64) (int, float64) {
	top := math.Inf(-1)
	var ties []int
	for i, k := range arms {
		s := b.score(k)
		if bonus != nil {
			s += bonus(i)
		}
		switch {
		case s > top:
			top, ties = s, []int{i}
		case s == top:
			ties = append(ties, i)
		}
	}
	if len(ties) == 0 {
		return -1, top
	}
	if order != nil {
		most := math.Inf(-1)
		for _, i := range ties {
			most = max(most, order(i))
		}
		ties = slices.DeleteFunc(ties, func(i int) bool { return order(i) < most })
	}
	return ties[b.intn(len(ties))], top
}

// predict is the state after a fault most often seen from state with
// that fault and role ("" unseen).
func (b *bandit) predict(k armKey) string {
	m := b.after[k]
	var out string
	most := 0
	for _, s := range slices.Sorted(maps.Keys(m)) {
		if m[s] > most {
			out, most = s, m[s]
		}
	}
	return out
}

// start is the state an episode's first fault strikes: the healthy state
// faults were most often injected in (ISR full, leader alive, no
// election), else fallback.
func (b *bandit) start(fallback string) string {
	out, most := fallback, 0
	for _, s := range slices.Sorted(maps.Keys(b.befores)) {
		st, err := states.Parse(s)
		if err != nil || st.ISR != states.ISRFull || st.Leader != states.LeaderAlive || st.Election != states.ElectionNone {
			continue
		}
		if b.befores[s] > most {
			out, most = s, b.befores[s]
		}
	}
	return out
}
