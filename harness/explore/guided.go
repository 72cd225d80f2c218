package explore

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
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
	case StrategyLive:
		return StrategyLive, nil
	}
	return "", &scenario.BadInputError{Err: fmt.Errorf("--strategy %q: want %s, %s or %s", v, StrategyRandom, StrategyGuided, StrategyLive)}
}

// strategyOf is a recorded strategy with "" read as random: explore.json
// and campaign.json written before strategies had none, and Config's
// zero Strategy is random.
func strategyOf(recorded string) string { return cmp.Or(recorded, StrategyRandom) }

// strategyDiff says how recorded strategy b differs from a ("" where they
// are one).
func strategyDiff(a, b string) string {
	if strategyOf(a) == strategyOf(b) {
		return ""
	}
	return fmt.Sprintf("strategy %s against %s", strategyOf(a), strategyOf(b))
}

// adaptive says whether a strategy chooses from the coverage of the runs
// before (guided, live): a run's schedule waits for the run before it.
func adaptive(strategy string) bool { return strategy == StrategyGuided || strategy == StrategyLive }

// CheckStrategy refuses, before any cluster starts, a mix the strategy
// cannot aim (guided and live aim the same candidates: Guide's check).
func CheckStrategy(e *scenario.Scenario, strategy string) error {
	if !adaptive(strategy) {
		return nil
	}
	if _, err := Guide(e, 1, nil); err != nil {
		return fmt.Errorf("strategy %s: %w", strategy, err)
	}
	return nil
}

// Choice is one fault the guided strategy chose, recorded in explore.json
// beside the run.
type Choice struct {
	// State is the abstract state the fault was aimed at: the one seen
	// most often after what came before it, or, never seen, "after <fault
	// @role> from <state>" ("after heal-<kind> from <state>" past a
	// partial heal).
	State string `json:"state"`
	Fault string `json:"fault"`
	// Role is the step's target role ("" the fault's own default), and
	// Count its target's count (1: one follower, the first in id order).
	Role  string `json:"role,omitempty"`
	Count int    `json:"count,omitempty"`
	// Moment: "first" (an episode's first fault, after quiet), "settled"
	// (once the first fault's effect showed or its wait passed), "early"
	// (1 s after the first fault, before its effect), "third" (a third
	// fault once the second's effect showed, both still holding) or
	// "after-heal" (once the first fault was healed, the second still
	// holding: Healed names the heal); "live" for every choice of the
	// live strategy, made when it was struck, in the state the observer
	// showed (State, projected: states.Project).
	Moment string `json:"moment"`
	Healed string `json:"healed,omitempty"`
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

// Guide is the guided strategy, a pure function: from the explorable
// scenario base (its random section gives the mix, the timing and any
// targets), the run's seed and the coverage of the runs before it (in run
// order), the run's schedule. A run is episodes over the random
// section's duration (planner: how many fit), each two faults of the mix
// (one when the mix has one, or, after the first episode, when the time
// holds no more), chosen by UCB1 among the arms of the
// state each strikes in (the first in the state episodes start from,
// weighing the frontier it opens; the second in the state the first is
// predicted to lead to, once that effect showed, or at once), and, where
// the time allows and the state it would strike in has untried arms, a
// third: after the first fault's heal when the two heal apart, else with
// both holding. Each fault waits for its effect through an `until` where
// the ids it needs are known (the first episode's leader is the topic's
// preferred replica), optional and bounded by the wait the cluster's
// configs imply (waitsOf), else for that wait; then the episode heals
// what it injected, one kind at a time in the bandit's order, and,
// unless it is the last, stays quiet until the ISR is whole again (at
// most the random section's quiet). Untried arms go first; among them,
// in a run's first episode until some run struck the sequence loss to
// its end, the prior's (isolate the leader, then take it), elsewhere the
// rarest aim, a strike that leaves the partition leaderless last.
func Guide(base *scenario.Scenario, seed int64, history []*states.Coverage) (Guided, error) {
	p, err := newPlanner(base, seed, history)
	if err != nil {
		return Guided{}, err
	}
	p.plan()
	c := *base
	c.Seed = 0
	c.Nemesis = nemesis.Schedule{Steps: p.steps}
	c.SetSeed(seed)
	c.Description = strings.TrimSpace(base.Description + "\n\nkchaos explore --strategy guided: " + choicesText(p.choices))
	d, err := scenario.Derive(&c, base.Name+" (guided)", nil)
	if err != nil {
		return Guided{}, err
	}
	return Guided{Scenario: d, Choices: p.choices}, nil
}

// newPlanner is Guide's planner for base, before it plans: the guided
// partition (the random section's target's, else 0) and its shape, the
// candidates, the waits and the time.
func newPlanner(base *scenario.Scenario, seed int64, history []*states.Coverage) (*planner, error) {
	rs := base.Nemesis.Random
	if rs == nil {
		return nil, fmt.Errorf("guided: %s has no random section to take the mix from (Explorable)", base.Name)
	}
	part := int32(0)
	if rs.Targets != nil {
		part = rs.Targets.Partition
	}
	var replicas []int32
	if a := base.Topic.AssignmentOrDefault(base.Cluster.Brokers); int(part) < len(a) {
		replicas = a[part]
	}
	minISR, _ := strconv.Atoi(base.Settings()["min.insync"])
	shape := isrShape{rf: len(replicas), minISR: minISR}
	cands := candidates(*rs, part, shape)
	if len(cands) == 0 {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("guided: no fault of the mix (%s) can be aimed", strings.Join(rs.Faults, ", "))}
	}
	quiet := rs.Quiet.Std()
	if rs.Active <= 0 {
		quiet = rs.Interval.Std() / 2
	}
	return &planner{b: newBandit(seed, history, shape), cands: cands, w: waitsOf(base), at: partitionAt{part, replicas},
		quiet: quiet, left: rs.Duration.Std()}, nil
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

// choicesText is the choices in words, for the scenario's description.
func choicesText(cs []Choice) string {
	var parts []string
	for _, c := range cs {
		role := c.Role
		if role == "" {
			role = "default"
		}
		if c.Count > 0 {
			role += fmt.Sprintf("[%d]", c.Count)
		}
		moment := c.Moment
		if c.Healed != "" {
			moment += " " + c.Healed
		}
		parts = append(parts, fmt.Sprintf("%s@%s (%s)", c.Fault, role, moment))
	}
	return strings.Join(parts, ", ")
}
