package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// StrategyLive is the guided strategy with its choices made as the run
// goes (liveChooser), each strike in the state the observer shows when it
// is struck, where StrategyGuided plans the whole run before it starts
// and, preferring untried arms, whose next state nobody has seen, aims
// most strikes at a state it guesses (docs/measured/strategies.md: 60 %
// of them). Experimental until the random-against-guided table measures
// it.
const StrategyLive = "live"

// maxHeld is how many of its strikes the live chooser lets hold at once:
// two, so that a strike can land in the state another left (the
// sequence losses need that), and a heal of one leaves a state the
// final heals never see; a third would leave most brokers down.
const maxHeld = 2

// liveChooser is the live strategy's nemesis.Chooser for one run. It
// follows the run's history (states.Live through the recorder's tap) and,
// each time the runner asks, chooses among the mix's strikes that can
// land in the partition's state now and the heals of what holds, by the
// bandit learnt from the runs before (on projected states: states.Project
// says what a live state cannot know), untried arms first, the rarest aim
// among them, the sequence-loss prior (isolate the leader, then take it)
// first until some run struck it. A strike is followed by its settle (an
// until bounded by the configs' waits); a heal by the margin. After the
// random section's duration it ends, leaving what holds to the final
// heal. The steps the runner played, which it is told at each ask (the
// last ask, its end, has them all), are kept, so that a scripted schedule
// of them replays the run (played).
type liveChooser struct {
	b        *bandit
	cands    []candidate
	w        waits
	at       partitionAt
	info     *histories.RunInfo
	duration time.Duration
	now      func() time.Time

	mu      sync.Mutex
	live    *states.Live
	begin   time.Time
	held    []held
	ran     []nemesis.Step // the runner's played steps, as of the last ask
	choices []Choice
}

var _ nemesis.Chooser = (*liveChooser)(nil)

// newLiveChooser is run seed's chooser over base's random section (its
// mix, duration and target) after the runs whose coverage is history.
func newLiveChooser(base *scenario.Scenario, seed int64, history []*states.Coverage, now func() time.Time) (*liveChooser, error) {
	projected := make([]*states.Coverage, len(history))
	for i, c := range history {
		projected[i] = c.Projected()
	}
	p, err := newPlanner(base, seed, projected)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	info := &histories.RunInfo{Topic: base.Topic.Name, Replication: len(p.at.replicas),
		TopicConfigs: map[string]string{"min.insync.replicas": base.Settings()["min.insync"]}}
	return &liveChooser{b: p.b, cands: p.cands, w: p.w, at: p.at, info: info, duration: base.Nemesis.Random.Duration.Std(), now: now}, nil
}

// Next is the runner's question (nemesis.Chooser).
func (c *liveChooser) Next(ctx context.Context, e *nemesis.Env, played []nemesis.Step) []nemesis.Step {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ran = played
	if c.live == nil {
		if e.Recorder == nil {
			return nil // nothing to follow the state by
		}
		info := *c.info
		// The run's topic, which a run on a reused cluster renames
		// (orders-reuse1), and its controllers.
		info.Topic, info.Controllers = e.Topic, cluster.IDs(e.Cluster.Controllers())
		c.live = states.NewLive(&info)
		e.Recorder.Tap(c.live.Event)
		c.begin = c.now()
		// The workload alone first: a strike before the observer's first
		// sample strikes a state nobody saw.
		return []nemesis.Step{{Wait: nemesis.Duration(c.w.Margin)}}
	}
	left := c.duration - c.now().Sub(c.begin)
	if left <= 0 {
		// What still holds is the final heal's (heal all): healed one kind
		// at a time first, it would end every run in the same healthy
		// state, and its heal-all be the same transition every run.
		return nil
	}
	st, leader, ok := c.live.Now(c.at.id)
	if !ok {
		return []nemesis.Step{{Wait: nemesis.Duration(500 * time.Millisecond)}}
	}
	state := states.Project(st).String()
	arms, strikes := c.arms(state, leader, left)
	if len(arms) == 0 {
		if left < time.Second || !c.fits(leader, left) {
			return nil // no strike could settle in the time left
		}
		// Nothing can land in this state (a partition with no leader):
		// the state may change.
		return []nemesis.Step{{Wait: nemesis.Duration(time.Second)}}
	}
	j, _ := c.b.best(arms, func(i int) float64 { return c.b.novelty(arms[i]) }, func(i int) float64 {
		if i < len(strikes) {
			return c.order(c.cands[strikes[i]], arms[i])
		}
		return c.b.rarity(arms[i])
	})
	k := arms[j]
	untried := c.b.pulls[k] == 0
	c.b.pull(k)
	if j >= len(strikes) {
		kind, _ := states.HealedKind(k.fault)
		c.choices = append(c.choices, Choice{State: state, Fault: k.fault, Moment: "live", Untried: untried})
		c.held = slices.DeleteFunc(c.held, func(h held) bool { return healKindOf(h.c.fault) == kind })
		return []nemesis.Step{{Heal: kind}, {Wait: nemesis.Duration(c.w.Margin)}}
	}
	cand := c.cands[strikes[j]]
	fx := effectsOf(c.held)
	c.choices = append(c.choices, Choice{State: state, Fault: cand.name, Role: cand.role, Count: cand.count, Moment: "live", Untried: untried})
	c.held = append(c.held, held{c: cand, leaderless: cand.takesLeader() && fx.alone})
	return append([]nemesis.Step{cand.step}, settle(cand, knownLeader(leader), c.at, c.w, fx.alone)...)
}

// arms are the choices in state: the strikes that can land there and
// settle in the time left (not while maxHeld strikes hold; strikes holds
// their candidates' indexes, in arms' order) and then the heals of what
// holds (once one does, and its margin fits), so that a live run takes
// the random section's duration, as a random run does, and no more.
func (c *liveChooser) arms(state string, leader int32, left time.Duration) (arms []armKey, strikes []int) {
	fx := effectsOf(c.held)
	known := knownLeader(leader)
	if len(c.held) < maxHeld {
		for i, cand := range c.cands {
			if slices.ContainsFunc(c.held, func(h held) bool { return h.c.name == cand.name }) || !strikable(cand, state, fx) ||
				nominal(settle(cand, known, c.at, c.w, fx.alone)) > left {
				continue
			}
			arms, strikes = append(arms, armKey{state, cand.name, cand.armRole}), append(strikes, i)
		}
	}
	var kinds []string
	for _, h := range c.held {
		kinds = healOf(kinds, h.c.fault)
	}
	if c.w.Margin > left {
		kinds = nil
	}
	for _, kind := range kinds {
		arms = append(arms, armKey{state, states.HealName(kind), anyRole})
	}
	return arms, strikes
}

// fits says whether some strike of the mix settles in the time left,
// in whatever state.
func (c *liveChooser) fits(leader int32, left time.Duration) bool {
	known := knownLeader(leader)
	return slices.ContainsFunc(c.cands, func(cand candidate) bool {
		return nominal(settle(cand, known, c.at, c.w, false)) <= left || nominal(settle(cand, known, c.at, c.w, true)) <= left
	})
}

// order ranks tied strikes: under the sequence-loss prior (no run struck
// the loss yet) a strike that isolates the leader first while nothing
// holds, one that takes the leader first once an isolation holds; the
// rarest aim among the rest.
func (c *liveChooser) order(cand candidate, k armKey) float64 {
	if c.b.lossStruck {
		return c.b.rarity(k)
	}
	rank := 0
	switch fx := effectsOf(c.held); {
	case len(c.held) == 0:
		rank = cand.isolation()
	case fx.alone && cand.takesLeader():
		rank = 1
	}
	return float64(rank)*preferred + c.b.rarity(k)
}

// played is what the runner played of the chooser's steps, as a
// scripted scenario derived from base (its random section replaced by
// the steps), and the choices.
func (c *liveChooser) played(base *scenario.Scenario, seed int64) (*scenario.Scenario, []Choice, error) {
	c.mu.Lock()
	steps, choices := compactWaits(c.ran), slices.Clone(c.choices)
	c.mu.Unlock()
	s := *base
	s.Seed = 0
	s.Nemesis = nemesis.Schedule{Steps: steps}
	s.SetSeed(seed)
	s.Description = strings.TrimSpace(base.Description + "\n\nkchaos explore --strategy live: " + choicesText(choices))
	d, err := scenario.Derive(&s, base.Name+" (live)", nil)
	if err != nil {
		return nil, choices, fmt.Errorf("live: the steps played: %w", err)
	}
	return d, choices, nil
}

// liveScenario is base to be run with ch choosing its steps: its random
// section dropped, ch set as the live schedule.
func liveScenario(base *scenario.Scenario, seed int64, ch *liveChooser) (*scenario.Scenario, error) {
	s := *base
	s.Seed = 0
	s.Nemesis = nemesis.Schedule{}
	s.SetSeed(seed)
	d, err := scenario.Derive(&s, base.Name+" (live)", nil)
	if err != nil {
		return nil, err
	}
	d.Nemesis.Live = ch
	return d, nil
}

// compactWaits is steps with each run of waits one wait as long (the
// chooser waits half a second at a time for a first sample): the same
// schedule, as a reader would write it.
func compactWaits(steps []nemesis.Step) []nemesis.Step {
	var out []nemesis.Step
	for _, st := range steps {
		if n := len(out); n > 0 && st.Wait > 0 && out[n-1].Wait > 0 {
			out[n-1].Wait += st.Wait
			continue
		}
		out = append(out, st)
	}
	return out
}

// knownLeader is a sample's leader as settle takes it: nil when the
// partition had none (-1).
func knownLeader(leader int32) *int32 {
	if leader < 0 {
		return nil
	}
	return &leader
}
