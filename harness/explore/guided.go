package explore

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// Strategies: how an exploration draws each run's schedule.
const (
	// StrategyRandom draws seeded random schedules (Explorable's random
	// section): the default until measurements show guided finds more.
	StrategyRandom = "random"
	// StrategyGuided chooses each run's faults from the coverage the runs
	// before reached (Guide).
	StrategyGuided = "guided"
)

// ParseStrategy reads --strategy (an empty value is refused: the flag's
// default is random; Config's zero Strategy means random too).
func ParseStrategy(v string) (string, error) {
	switch v {
	case StrategyRandom:
		return StrategyRandom, nil
	case StrategyGuided:
		return StrategyGuided, nil
	}
	return "", &scenario.BadInputError{Err: fmt.Errorf("--strategy %q: want %s or %s", v, StrategyRandom, StrategyGuided)}
}

// Choice is one fault the guided strategy chose, recorded in explore.json
// beside the run.
type Choice struct {
	// State is the abstract state the fault was aimed at: the one seen
	// most often after what came before it, or, never seen, "after <fault
	// @role> from <state>".
	State string `json:"state"`
	Fault string `json:"fault"`
	// Role is the step's target role ("" the fault's own default).
	Role string `json:"role,omitempty"`
	// Moment: "first" (an episode's first fault, after quiet), "settled"
	// (once the first fault's effect showed or its wait passed) or
	// "early" (1 s after the first fault, before its effect).
	Moment string `json:"moment"`
	// Untried says no run had pulled the arm: chosen to explore.
	Untried bool `json:"untried,omitempty"`
}

// Guided is one run's guided schedule: a scripted scenario (shrink,
// repro and `kchaos run` take it as they take any), and the choices
// behind it.
type Guided struct {
	Scenario *scenario.Scenario
	Choices  []Choice
}

// candidate is a fault of the mix aimed one way.
type candidate struct {
	name    string // the mix's name (partition-leader-followers)
	fault   string // the kind (partition)
	role    string // the step's target role ("" none)
	armRole string // its arm's role (armRole: the step's, or anyRole)
	links   bool
	step    nemesis.Step
}

// Guide is the guided strategy, a pure function: from the explorable
// scenario base (its random section gives the mix, the timing and any
// targets), the run's seed and the coverage of the runs before it (in run
// order), the run's schedule. A run is one or more episodes over the
// workload's duration, each two faults of the mix (or one, when the mix
// has one): the first chosen by UCB1 among the arms of the state faults
// start from, the second among the arms of the state the first is
// predicted to lead to (struck once that effect showed: "settled") and
// of the state before it (struck at once: "early"), so that the bandit
// also chooses the moment. Each fault then waits for its effect through
// an `until` where the ids it needs are known (the first episode's
// leader is the topic's preferred replica), optional and bounded by the
// wait the cluster's configs imply (WaitsOf), else for that wait; then
// the episode holds, heals what it injected and stays quiet.
func Guide(base *scenario.Scenario, seed int64, history []*states.Coverage) (Guided, error) {
	rs := base.Nemesis.Random
	if rs == nil {
		return Guided{}, fmt.Errorf("guided: %s has no random section to take the mix from (Explorable)", base.Name)
	}
	part := int32(0)
	if rs.Targets != nil {
		part = rs.Targets.Partition
	}
	cands := candidates(*rs, part, base.Cluster.Brokers)
	if len(cands) == 0 {
		return Guided{}, &scenario.BadInputError{Err: fmt.Errorf("guided: no fault of the mix (%s) can be aimed", strings.Join(rs.Faults, ", "))}
	}
	w := waitsOf(base)
	active, quiet := rs.Active.Std(), rs.Quiet.Std()
	if active <= 0 {
		active, quiet = max(rs.Interval.Std(), time.Second), rs.Interval.Std()/2
	}
	hold := max(active/2, time.Second)
	episode := w.ISRShrink + w.Fence + hold + quiet
	episodes := max(1, int(rs.Duration.Std()/episode))

	b := newBandit(seed, history)
	healthy := states.State{ISR: states.ISRFull, Leader: states.LeaderAlive, ELR: states.ELREmpty, Election: states.ElectionNone,
		Truncation: states.TruncNone, Quorum: states.Unknown, Coordinator: states.Unknown}
	s0 := b.start(healthy.String())
	var leader *int32
	if a := base.Topic.AssignmentOrDefault(base.Cluster.Brokers); int(part) < len(a) && len(a[part]) > 0 {
		l := a[part][0]
		leader = &l
	}
	// The workload and the observer start first: a fault before the
	// partition's first sample strikes a state nobody saw (unknown), and
	// before the first acks there is nothing to lose.
	steps := []nemesis.Step{{Wait: nemesis.Duration(w.Margin)}}
	var choices []Choice
	for e := range episodes {
		known := leader
		if e > 0 {
			known = nil // an episode before may have moved the leader
		}
		first, untried := pick(b, cands, []string{s0}, "", func(k armKey) float64 { return frontier(b, cands, k) })
		c1 := cands[first.i]
		choices = append(choices, Choice{State: s0, Fault: c1.name, Role: c1.role, Moment: "first", Untried: untried})
		steps = append(steps, c1.step)
		settle1 := settle(c1, known, part, w, false)
		heals := healOf(nil, c1.fault)
		if len(cands) == 1 {
			steps = append(steps, settle1...)
		} else {
			next := b.predict(armKey{s0, c1.name, c1.armRole})
			if next == "" {
				next = fmt.Sprintf("after %s@%s from %s", c1.name, c1.armRole, s0)
			}
			second, untried := pick(b, cands, []string{next, s0}, c1.name, nil)
			c2 := cands[second.i]
			moment := "settled"
			if second.state == s0 && next != s0 {
				// Struck before the first fault's effect shows.
				moment = "early"
				steps = append(steps, nemesis.Step{Wait: nemesis.Duration(time.Second)})
			} else {
				steps = append(steps, settle1...)
			}
			choices = append(choices, Choice{State: second.state, Fault: c2.name, Role: c2.role, Moment: moment, Untried: untried})
			steps = append(steps, c2.step)
			if nemesis.MovesLeaders(c1.fault) {
				known = nil // the first fault may have moved the leader
			}
			steps = append(steps, settle(c2, known, part, w, true)...)
			heals = healOf(heals, c2.fault)
		}
		steps = append(steps, nemesis.Step{Wait: nemesis.Duration(hold)})
		for _, h := range heals {
			steps = append(steps, nemesis.Step{Heal: h})
		}
		if quiet > 0 {
			steps = append(steps, nemesis.Step{Wait: nemesis.Duration(quiet)})
		}
	}
	c := *base
	c.Seed = 0
	c.Nemesis = nemesis.Schedule{Steps: steps}
	c.SetSeed(seed)
	c.Description = strings.TrimSpace(base.Description + "\n\nkchaos explore --strategy guided: " + choicesText(choices))
	d, err := scenario.Derive(&c, base.Name+" (guided)", nil)
	if err != nil {
		return Guided{}, err
	}
	return Guided{Scenario: d, Choices: choices}, nil
}

// picked is an arm chosen: its candidate and the state it was aimed at.
type picked struct {
	i     int
	state string
}

// pick chooses among the candidates (all but exclude) in the first of
// the states, then in each next one only when it scores strictly higher
// there (so that ties go to the first: the settled moment), records the
// pull and says whether the arm was untried.
func pick(b *bandit, cands []candidate, in []string, exclude string, bonus func(armKey) float64) (picked, bool) {
	var best picked
	var bestArm armKey
	top := math.Inf(-1)
	for _, s := range slices.Compact(slices.Clone(in)) {
		var arms []armKey
		var which []int
		for i, c := range cands {
			if c.name != exclude || len(cands) == 1 {
				arms, which = append(arms, armKey{s, c.name, c.armRole}), append(which, i)
			}
		}
		if i, score := b.best(arms, bonus); i >= 0 && score > top {
			top, best, bestArm = score, picked{which[i], s}, arms[i]
		}
	}
	untried := b.pulls[bestArm] == 0
	b.pull(bestArm)
	return best, untried
}

// frontier is how much of the state arm k is predicted to lead to is
// still unexplored: the share of the other candidates never pulled there
// (1 when the state it leads to is not known). An episode's first fault
// earns it on top of its own score, because its worth is also what the
// second fault can cover from where it leads (Kafka's sequence losses
// need the second fault struck in the state the first made).
func frontier(b *bandit, cands []candidate, k armKey) float64 {
	next := b.predict(k)
	if next == "" {
		return 1
	}
	n, untried := 0, 0
	for _, c := range cands {
		if c.name == k.fault {
			continue
		}
		n++
		if b.pulls[armKey{next, c.name, c.armRole}] == 0 {
			untried++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(untried) / float64(n)
}

// candidates are the mix's faults, each aimed every way the guided
// strategy aims it: at partition part's leader and at its followers (the
// roles Kafka's sequence losses need), a link fault of another shape as
// its kind aims it by default, and only the random section's own target
// role when it gives one. Aims a schedule would refuse are left out.
func candidates(rs nemesis.RandomSchedule, part int32, brokers int) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, name := range rs.Faults {
		if seen[name] {
			continue
		}
		seen[name] = true
		fault, shape, ok := splitMixName(name)
		if !ok {
			continue
		}
		k, _ := nemesis.LookupKind(fault)
		links := k.Draw.Links
		roles := []string{nemesis.RoleLeader, nemesis.RoleFollowers}
		switch {
		case links && shape == nemesis.ShapeLeaderFollowers:
			roles = []string{nemesis.RoleLeader}
		case links && shape != nemesis.ShapeIsolate:
			roles = []string{""}
		case rs.Targets != nil:
			roles = []string{rs.Targets.Role}
		}
		for _, role := range roles {
			c := candidate{name: name, fault: fault, role: role, links: links}
			c.step = nemesis.Step{Fault: fault}
			switch {
			case role == nemesis.RoleRandom:
				c.step.Target = &nemesis.Target{Role: nemesis.RoleRandom, Count: 1}
			case role != "":
				c.step.Target = &nemesis.Target{Role: role, Partition: part}
			}
			if k.Draw.Params != nil {
				c.step.Params = k.Draw.Params(rs, shape)
			}
			c.armRole = role
			if role == nemesis.RoleRandom {
				c.armRole = anyRole
			}
			if (&nemesis.Schedule{Steps: []nemesis.Step{c.step}}).Validate() != nil {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// splitMixName reads a random mix's name as a fault kind and a link
// shape, as the kinds' Draw declares them (nemesis keeps its own reading
// unexported).
func splitMixName(name string) (fault, shape string, ok bool) {
	if k, found := nemesis.LookupKind(name); found && k.Draw != nil && k.Draw != nemesis.NotDrawn {
		return name, k.Draw.Shape, true
	}
	for i := range len(name) {
		if name[i] != '-' {
			continue
		}
		k, found := nemesis.LookupKind(name[:i])
		if found && k.Draw != nil && k.Draw != nemesis.NotDrawn && slices.Contains(k.Draw.Shapes, name[i+1:]) {
			return name[:i], name[i+1:], true
		}
	}
	return "", "", false
}

// settle is what follows a fault until its effect shows: an optional
// until where the ids it needs are known, bounded by the configs' wait,
// then Margin for the state to act (a leader acking alone once its ISR
// shrank); else the configs' wait. second marks an episode's second
// fault, whose strike at the leader is expected to leave the partition
// offline (the ISR had shrunk to it).
func settle(c candidate, leader *int32, part int32, w waits, second bool) []nemesis.Step {
	until := func(cond nemesis.Condition, timeout time.Duration) []nemesis.Step {
		return []nemesis.Step{{Until: &cond, Timeout: nemesis.Duration(timeout), Optional: true}, {Wait: nemesis.Duration(w.Margin)}}
	}
	wait := func(d time.Duration) []nemesis.Step { return []nemesis.Step{{Wait: nemesis.Duration(d)}} }
	switch c.fault {
	case histories.FKill, histories.FLoseUnflushed, histories.FPause:
		switch {
		case second && c.role == nemesis.RoleLeader:
			yes := true
			return until(nemesis.Condition{Partition: part, Offline: &yes}, w.Fence)
		case leader != nil && c.role == nemesis.RoleLeader:
			return until(nemesis.Condition{Fenced: []int32{*leader}}, w.Fence)
		case leader != nil && c.role == nemesis.RoleFollowers:
			// Fenced followers leave the ISR (the controller's doing), or
			// silent ones the leader's check drops: whichever comes first.
			return until(nemesis.Condition{Partition: part, ISR: []int32{*leader}}, max(w.Fence, w.ISRShrink))
		}
		return wait(w.Fence)
	case histories.FPartition, histories.FNetem:
		if leader != nil && (c.role == nemesis.RoleLeader || c.role == nemesis.RoleFollowers) {
			return until(nemesis.Condition{Partition: part, ISR: []int32{*leader}}, w.ISRShrink)
		}
		return wait(w.ISRShrink)
	}
	return wait(w.Margin)
}

// healOf adds the heal kind that undoes fault (none for an instant one).
func healOf(heals []string, fault string) []string {
	if f, ok := histories.LookupFault(fault); ok && f.Heal != "" && !slices.Contains(heals, f.Heal) {
		heals = append(heals, f.Heal)
	}
	return heals
}

// choicesText is the choices in words, for the scenario's description.
func choicesText(cs []Choice) string {
	var parts []string
	for _, c := range cs {
		role := c.Role
		if role == "" {
			role = "default"
		}
		parts = append(parts, fmt.Sprintf("%s@%s (%s)", c.Fault, role, c.Moment))
	}
	return strings.Join(parts, ", ")
}
