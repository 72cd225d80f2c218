package explore

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kchaos/kchaos/harness/explore/states"
)

// bandit is UCB1 over arms (abstract state, fault, target role), learnt
// from an exploration's coverage so far (issue 40: Mallory learnt which
// fault to inject in which state from the states it reached). Every
// transition a run showed is a pull of the arm (its state before, its
// fault, its role), and the first time a transition is seen in the
// exploration it pays 1: the reward is new coverage. An arm never pulled
// scores +Inf, so every fault is tried in every state before any is
// tried twice; after that UCB1 weighs what paid against what was tried
// least. Ties break on a seeded draw, so the same seed and the same
// coverage history pick the same arms.
type bandit struct {
	pulls, rewards map[armKey]float64
	// atState is the pulls of every arm in a state (UCB1's N).
	atState map[string]float64
	// after counts, per (state, fault, role), each state after: the
	// prediction of where a fault leads.
	after map[armKey]map[string]int
	// befores counts the states faults were injected in.
	befores map[string]int
	rng     *rand.PCG
}

// armKey is an arm: a state's text, a fault as a mix names it and a
// step's target role ("" the fault's default aim; "*" any role, for
// targets no role names in advance, such as a random broker).
type armKey struct{ state, fault, role string }

// armRole is the step role that strikes what coverage names role: a step
// aimed at the followers strikes in-sync followers, or, once they left
// the ISR, replicas outside it (or, offline, the ISR's members), or none
// when there are none; a link fault aimed by role is links-of-<role>.
func armRole(role string) string {
	switch role {
	case states.RoleLeader, "links-of-leader":
		return "leader"
	case states.RoleFollowers, states.RoleOutOfISR, states.RoleFollowers + "+" + states.RoleOutOfISR, states.RoleISR, states.RoleELR,
		states.RoleNone, "links-of-followers":
		return "followers"
	case states.RoleLinks:
		return ""
	}
	return anyRole
}

// anyRole is an arm's role that sums every role of its state and fault.
const anyRole = "*"

// newBandit learns from history, the coverage of each run so far in run
// order.
func newBandit(seed int64, history []*states.Coverage) *bandit {
	b := &bandit{pulls: map[armKey]float64{}, rewards: map[armKey]float64{}, atState: map[string]float64{},
		after: map[armKey]map[string]int{}, befores: map[string]int{},
		rng: rand.NewPCG(uint64(seed), uint64(seed)^0x67756964_65640000)}
	seen := map[string]bool{}
	for _, c := range history {
		if c == nil {
			continue
		}
		for _, t := range c.Transitions {
			n := float64(t.Count)
			for _, k := range []armKey{{t.Before, t.Fault, armRole(t.Role)}, {t.Before, t.Fault, anyRole}} {
				b.pulls[k] += n
				if !seen[t.Key()] {
					b.rewards[k]++
				}
				if b.after[k] == nil {
					b.after[k] = map[string]int{}
				}
				b.after[k][t.After] += t.Count
			}
			seen[t.Key()] = true
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
}

// best is the index of the highest-scoring arm (ties drawn).
func (b *bandit) best(arms []armKey, bonus func(armKey) float64) (int, float64) {
	top := math.Inf(-1)
	var ties []int
	for i, k := range arms {
		s := b.score(k)
		if bonus != nil {
			s += bonus(k)
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
