package explore

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/nemesis"
)

// planner lays out one run's guided schedule (Guide): episodes of
// strikes the bandit chooses, as many as the random section's duration
// holds.
//
// The time is what bounds the coverage a run can reach: each fault or
// heal is one transition per partition, and in the measured explorations
// (docs/measured/strategies) both strategies saw about as many
// transitions (66-72 in 4 runs) and covered 65-84% of them as distinct,
// the repeats mostly heals from the same states. So an episode spends no
// time holding its faults once their effect showed (the settle's until
// and the 2 s after it are that hold): that time goes to a third strike,
// struck in a state the first two led to rather than the healthy one
// every episode starts from, and, where the two faults heal apart, to a
// heal of the first while the second holds, whose transition starts
// from a state the final heals never see. Between episodes the cluster
// is quiet only until the ISR is whole again, at most the random
// section's quiet; after the last, the final heal follows at once.
type planner struct {
	b     *bandit
	cands []candidate
	w     waits
	at    partitionAt
	quiet time.Duration
	// left is the time still to plan: each step counted at its nominal
	// length (nominal), so that two strikes cost what the episodes were
	// planned at before (ISRShrink + Fence).
	left    time.Duration
	steps   []nemesis.Step
	choices []Choice
}

// option is a state a strike may be aimed at, with what the strikes that
// hold say of it there.
type option struct {
	state string
	fx    effects
}

// picked is an arm chosen: its candidate and the option it was aimed at.
type picked struct {
	i       int
	state   string
	fx      effects
	untried bool
}

// plan lays out the run: 2 s of workload alone (a fault before the
// observer's first sample strikes a state nobody saw), then episodes
// while the time holds one more strike (at least one episode, of two
// strikes: the sequence losses need both). The first episode knows
// the leader (the topic's preferred replica); the ones after start from
// the state the last one's heals are predicted to lead to, where known
// and led, else from the healthy state faults were most often injected
// in.
//
// The sequence-loss prior (among untried arms, isolate the leader, then
// take it) holds in the first episode only, and only until some run's
// coverage shows a sequence struck to its end (bandit.lossStruck): a
// fresh exploration strikes Kafka's loss at once, but a prior that held
// in every episode filled them all (the untried isolate and take-leader
// pairs outnumber a few runs' episodes, one for each start state) and,
// since a strike that took the leader from an ISR shrunk to it leaves no
// room for a third, no state beyond the healthy start was ever struck.
// Every other choice goes by novelty: untried arms first, rare aims
// first among them (bandit.rarity).
func (p *planner) plan() {
	healthy := states.State{ISR: states.ISRFull, Leader: states.LeaderAlive, ELR: states.ELREmpty, Election: states.ElectionNone,
		Truncation: states.TruncNone, Quorum: states.Unknown, Coordinator: states.Unknown}
	s0 := p.b.start(healthy.String())
	var leader *int32
	if len(p.at.replicas) > 0 {
		l := p.at.replicas[0]
		leader = &l
	}
	p.add(nemesis.Step{Wait: nemesis.Duration(p.w.Margin)})
	start, known := s0, leader
	for opening := true; ; opening = false {
		end, struck := p.episode(start, known, opening, opening && !p.b.lossStruck)
		if !struck || p.left < p.quiet+p.strike() {
			return
		}
		p.quietSteps()
		start, known = s0, nil // an episode may have moved the leader
		if st, err := states.Parse(end); err == nil && st.Leader != states.LeaderOffline {
			start = end
		}
	}
}

// strike is the nominal time a strike may take to settle, at most: what
// one more strike needs.
func (p *planner) strike() time.Duration { return max(p.w.ISRShrink, p.w.Fence) }

// episode plans one episode from state start (known: the leader's id,
// nil when not known) and returns the state its heals are predicted to
// lead to; struck is false when no candidate could strike. The opening
// episode has two strikes whatever the time; a later one has its second
// only where the time holds it (one strike and its heal still add
// transitions the time would otherwise not). seq: the sequence-loss
// prior orders the untried arms (plan), else their rarity does.
func (p *planner) episode(start string, known *int32, opening, seq bool) (end string, struck bool) {
	order := p.rarity
	if seq {
		order = p.preferring(candidate.isolation)
	}
	first, ok := p.pick([]option{{start, effects{}}}, nil, p.firstBonus, order)
	if !ok {
		return start, false
	}
	c1 := p.cands[first.i]
	p.choose(first, c1, "first", "")
	p.add(c1.step)
	hs := []held{{c: c1}}
	settle1 := settle(c1, known, p.at, p.w, false)
	next := p.after(start, c1)
	if len(p.cands) == 1 || !opening && p.left-nominal(settle1) < p.strike() {
		p.addSettle(settle1)
		return p.heal(hs, next), true
	}
	fx1 := effectsOf(hs)
	// Untried, a strike that takes the leader after one that isolated it
	// (the sequence loss's second half) goes first under the prior, and
	// last outside it: it leaves the partition maybe leaderless, so the
	// episode's strikes end there, where any other leaves room for a
	// third in the state the two lead to.
	loss := func(c candidate) bool { return fx1.alone && c.takesLeader() }
	order = p.preferring(func(c candidate) int {
		if loss(c) != seq {
			return 0
		}
		return 1
	})
	second, ok := p.pick([]option{{next, fx1}, {start, effects{}}}, []string{c1.name}, p.novelty, order)
	if !ok {
		p.addSettle(settle1)
		return p.heal(hs, next), true
	}
	c2 := p.cands[second.i]
	moment := "settled"
	if second.state == start && next != start {
		// Struck before the first fault's effect shows.
		moment = "early"
		p.add(nemesis.Step{Wait: nemesis.Duration(time.Second)})
	} else {
		p.addSettle(settle1)
	}
	p.choose(second, c2, moment, "")
	if nemesis.MovesLeaders(c1.fault) {
		known = nil // the first fault may have moved the leader
	}
	p.add(c2.step)
	p.addSettle(settle(c2, known, p.at, p.w, fx1.alone))
	if nemesis.MovesLeaders(c2.fault) {
		known = nil
	}
	// Whether struck early or settled, the first fault had acted by
	// the time the second took the leader.
	hs = append(hs, held{c: c2, leaderless: c2.takesLeader() && fx1.alone})
	hs, cur := p.extend(hs, p.after(second.state, c2), known)
	return p.heal(hs, cur), true
}

// extend plans an episode's third strike in the state cur its first two
// are predicted to lead to, when the time holds it and that state has
// untried arms (else the time goes to the next episode). It goes before
// another episode: it costs less than a quiet and a strike, and strikes
// where an episode's healthy start never does. Where the two
// heal apart, the first is healed first ("after-heal": the state that
// leaves, the second holding); else both hold ("third"). Not where the
// partition may have no leader (a second strike took it from an ISR
// shrunk to it: the sequence loss's end, whose heals come next): a strike
// there may not resolve, and the loss's state is best left to the heals.
// A leader taken after a strike at one follower is replaced cleanly (the
// other follower is in the ISR): the episode strikes on.
// It returns the strikes that then hold and the state predicted.
func (p *planner) extend(hs []held, cur string, known *int32) ([]held, string) {
	if len(hs) < 2 || effectsOf(hs).leaderless {
		return hs, cur
	}
	rest, state, healed, moment := hs, cur, "", "third"
	if h := healKindOf(hs[0].c.fault); h != "" && h != healKindOf(hs[1].c.fault) {
		rest, state, healed, moment = hs[1:], p.afterHeal(cur, h), h, "after-heal"
	}
	fx := effectsOf(rest)
	var exclude []string
	for _, h := range rest {
		exclude = append(exclude, h.c.name)
	}
	opts := []option{{state, fx}}
	cost := p.strike()
	if healed != "" {
		cost += p.w.Margin
	}
	if !p.hasUntried(opts, exclude) || p.left < cost {
		return hs, cur
	}
	third, ok := p.pick(opts, exclude, p.novelty, p.rarity)
	if !ok {
		return hs, cur
	}
	if healed != "" {
		// The heal's effect (followers catching up, a broker starting)
		// takes the margin to show before the strike.
		p.add(nemesis.Step{Heal: healed}, nemesis.Step{Wait: nemesis.Duration(p.w.Margin)})
	}
	c3 := p.cands[third.i]
	p.choose(third, c3, moment, healed)
	p.add(c3.step)
	p.addSettle(settle(c3, known, p.at, p.w, fx.alone))
	rest = append(slices.Clone(rest), held{c: c3, leaderless: c3.takesLeader() && fx.alone})
	return rest, p.after(state, c3)
}

// heal undoes the strikes hs, one heal kind at a time, and returns the
// state predicted after the last. A heal is a transition too, one per
// partition, and a cheap one: the bandit orders them (untried first, in
// the state each is predicted to start from: healing pause before kill
// is another transition than kill before pause, and leaves another state
// for the next), and where the time spares it (spare) each heal but the
// last is given the margin to act (a resumed or reconnected follower
// rejoins the ISR in it), so that the next starts from the state it left
// rather than the one before it.
func (p *planner) heal(hs []held, cur string) string {
	var kinds []string
	for _, h := range hs {
		kinds = healOf(kinds, h.c.fault)
	}
	for len(kinds) > 0 {
		arms := make([]armKey, len(kinds))
		for i, k := range kinds {
			arms[i] = armKey{cur, states.HealName(k), anyRole}
		}
		j, _ := p.b.best(arms, func(i int) float64 { return p.b.novelty(arms[i]) }, nil)
		p.b.pull(arms[j])
		k := kinds[j]
		kinds = slices.Delete(kinds, j, j+1)
		p.add(nemesis.Step{Heal: k})
		cur = p.afterHeal(cur, k)
		if len(kinds) > 0 && p.spare(p.w.Margin) {
			p.add(nemesis.Step{Wait: nemesis.Duration(p.w.Margin)})
		}
	}
	return cur
}

// spare says whether d can be spent without costing a strike: the time
// left after it still holds another episode (a quiet and a strike), or
// held none before it either (and d fits in what is left).
func (p *planner) spare(d time.Duration) bool {
	next := p.quiet + p.strike()
	return p.left-d >= next || p.left < next && p.left >= d
}

// quietSteps waits, between episodes, until the partition's ISR holds
// every replica again (at most the random section's quiet: a broker that
// restarts slowly leaves the next episode a shrunk ISR to strike), then,
// where it did not, until the partition has a leader (at most a fence: a
// strike at the leader or its followers needs one; not counted, since it
// holds at once where the ISR is whole).
func (p *planner) quietSteps() {
	if p.quiet <= 0 {
		return
	}
	if len(p.at.replicas) == 0 {
		p.add(nemesis.Step{Wait: nemesis.Duration(p.quiet)})
		return
	}
	p.add(nemesis.Step{Until: &nemesis.Condition{Partition: p.at.id, ISR: slices.Clone(p.at.replicas)}, Timeout: nemesis.Duration(p.quiet), Optional: true})
	led := false
	p.steps = append(p.steps, nemesis.Step{Until: &nemesis.Condition{Partition: p.at.id, Offline: &led}, Timeout: nemesis.Duration(p.w.Fence), Optional: true})
}

// add appends steps, counting waits and untils at their bounds.
func (p *planner) add(steps ...nemesis.Step) {
	for _, st := range steps {
		switch {
		case st.Until != nil:
			p.left -= st.Timeout.Std()
		case st.Wait > 0:
			p.left -= st.Wait.Std()
		}
	}
	p.steps = append(p.steps, steps...)
}

// addSettle appends a settle's steps counted at their nominal length.
func (p *planner) addSettle(steps []nemesis.Step) {
	p.left -= nominal(steps)
	p.steps = append(p.steps, steps...)
}

// nominal is a settle's length as the plan counts it: an until at its
// bound, which waitsOf pads by the margin an until that holds saves (the
// margin after it not counted), or the wait.
func nominal(steps []nemesis.Step) time.Duration {
	switch {
	case len(steps) == 0:
		return 0
	case steps[0].Until != nil:
		return steps[0].Timeout.Std()
	}
	return steps[0].Wait.Std()
}

// choose records a choice.
func (p *planner) choose(pk picked, c candidate, moment, healed string) {
	p.choices = append(p.choices, Choice{State: pk.state, Fault: c.name, Role: c.role, Count: c.count, Moment: moment,
		Healed: healed, Untried: pk.untried})
}

// after is the state c struck in state is predicted to lead to: the one
// seen most often, else "after <fault>@<aim> from <state>".
func (p *planner) after(state string, c candidate) string {
	if next := p.b.predict(armKey{state, c.name, c.armRole}); next != "" {
		return next
	}
	return fmt.Sprintf("after %s@%s from %s", c.name, c.armRole, state)
}

// afterHeal is the state a heal of kind in state is predicted to lead to.
func (p *planner) afterHeal(state, kind string) string {
	if next := p.b.predict(armKey{state, states.HealName(kind), anyRole}); next != "" {
		return next
	}
	return fmt.Sprintf("after heal-%s from %s", kind, state)
}

// pick chooses among the candidates that can strike (strikable; all but
// those excluded, unless the mix has one) in the first option's state,
// then in each next one only when it scores strictly higher there (so
// that ties go to the first: the settled moment), ties in a state going
// to the highest order (nil: none); it records the pull and says
// whether the arm was untried. ok is false when no candidate can strike.
func (p *planner) pick(opts []option, exclude []string, bonus, order func(candidate, armKey) float64) (best picked, ok bool) {
	var bestArm armKey
	top := math.Inf(-1)
	var seen []string
	for _, o := range opts {
		if slices.Contains(seen, o.state) {
			continue
		}
		seen = append(seen, o.state)
		var arms []armKey
		var which []int
		for i, c := range p.cands {
			if slices.Contains(exclude, c.name) && len(p.cands) > 1 || !strikable(c, o.state, o.fx) {
				continue
			}
			arms, which = append(arms, armKey{o.state, c.name, c.armRole}), append(which, i)
		}
		var bf func(int) float64
		if bonus != nil {
			bf = func(j int) float64 { return bonus(p.cands[which[j]], arms[j]) }
		}
		var of func(int) float64
		if order != nil {
			of = func(j int) float64 { return order(p.cands[which[j]], arms[j]) }
		}
		if j, score := p.b.best(arms, bf, of); j >= 0 && score > top {
			top, best, bestArm, ok = score, picked{i: which[j], state: o.state, fx: o.fx}, arms[j], true
		}
	}
	if !ok {
		return picked{}, false
	}
	best.untried = p.b.pulls[bestArm] == 0
	p.b.pull(bestArm)
	return best, true
}

// hasUntried says whether a candidate that can strike in one of the
// options was never pulled there.
func (p *planner) hasUntried(opts []option, exclude []string) bool {
	for _, o := range opts {
		for _, c := range p.cands {
			if !slices.Contains(exclude, c.name) && strikable(c, o.state, o.fx) && p.b.pulls[armKey{o.state, c.name, c.armRole}] == 0 {
				return true
			}
		}
	}
	return false
}

// firstBonus is an episode's first choice's bonus: its frontier and its
// novelty.
func (p *planner) firstBonus(c candidate, k armKey) float64 { return p.frontier(c, k) + p.b.novelty(k) }

// novelty is the later choices' bonus (bandit.novelty).
func (p *planner) novelty(_ candidate, k armKey) float64 { return p.b.novelty(k) }

// rarity is the order of tied arms outside the sequence-loss prior
// (bandit.rarity).
func (p *planner) rarity(_ candidate, k armKey) float64 { return p.b.rarity(k) }

// preferring is the sequence-loss prior's order: the candidates rank
// ranks higher first, rarity among those ranked alike.
func (p *planner) preferring(rank func(candidate) int) func(candidate, armKey) float64 {
	return func(c candidate, k armKey) float64 { return float64(rank(c))*preferred + p.b.rarity(k) }
}

// preferred is what one step of a prior's rank weighs: rarity is minus a
// pull count, far smaller.
const preferred = 1 << 40

// frontier is how much of the state arm k (candidate c) is predicted to
// lead to is still unexplored: the share of the other candidates that
// can strike there never pulled there (1 when the state it leads to is
// not known). An episode's first fault earns it on top of its own score,
// because its worth is also what the second fault can cover from where it
// leads (Kafka's sequence losses need the second fault struck in the
// state the first made).
func (p *planner) frontier(c candidate, k armKey) float64 {
	next := p.b.predict(k)
	if next == "" {
		return 1
	}
	fx := effectsOf([]held{{c: c}})
	n, untried := 0, 0
	for _, o := range p.cands {
		if o.name == c.name || !strikable(o, next, fx) {
			continue
		}
		n++
		if p.b.pulls[armKey{next, o.name, o.armRole}] == 0 {
			untried++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(untried) / float64(n)
}
