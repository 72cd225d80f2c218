package nemesis

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// randomFault maps a name of a random schedule's fault mix to a fault and
// a link shape, as the kinds' Draw declares them: a kind's own name (a
// link fault's Draw.Shape: partition and netem are shape isolate) or
// name-<shape> for each of its Draw.Shapes. A kind with NotDrawn is never
// drawn.
func randomFault(name string) (fault, shape string, ok bool) {
	for _, k := range drawable() {
		if name == k.Name {
			return k.Name, k.Draw.Shape, true
		}
		if s, found := strings.CutPrefix(name, k.Name+"-"); found && slices.Contains(k.Draw.Shapes, s) {
			return k.Name, s, true
		}
	}
	return "", "", false
}

// drawable are the kinds a random schedule may draw, in Draw.Rank order.
func drawable() []Kind {
	var out []Kind
	for _, k := range registry {
		if k.Draw != nil && k.Draw != NotDrawn {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b Kind) int { return a.Draw.Rank - b.Draw.Rank })
	return out
}

// randomFaultNames are the drawable names: every kind's own, then every
// kind's name-<shape> variants, each in Draw.Rank order.
func randomFaultNames() []string {
	var out []string
	kinds := drawable()
	for _, k := range kinds {
		out = append(out, k.Name)
	}
	for _, k := range kinds {
		for _, s := range k.Draw.Shapes {
			out = append(out, k.Name+"-"+s)
		}
	}
	return out
}

// planStep is the step a drawn fault injects.
func planStep(r *prng, rs RandomSchedule, name string, ids []int32) Step {
	fault, shape, _ := randomFault(name)
	k, _ := LookupKind(fault)
	links, anyBroker := k.Draw != nil && k.Draw.Links, k.Draw != nil && k.Draw.AnyBroker
	st := Step{Fault: fault, Target: planTarget(r, rs.Targets, links, anyBroker, shape, ids)}
	if k.Draw != nil && k.Draw.Params != nil {
		st.Params = k.Draw.Params(rs, shape)
	}
	return st
}

// healFor is the heal that undoes a random fault ("" when none is needed).
func healFor(fault string) string {
	if k, ok := LookupKind(fault); ok && k.lasting() {
		return k.Heal.Name
	}
	return ""
}

// Plan expands a random schedule into scripted steps, as a pure function of
// the schedule and the broker ids, so that the same seed gives the same
// run (and a test can check it). Each interval injects one fault drawn
// from the mix, holds it for a random time between half and all of the
// interval, heals it, and waits out the rest of the interval; in periods
// mode (Active set) see planPeriods.
//
// Random choices are made here, not when the fault fires: a `random`
// target becomes explicit node ids. Roles that depend on the cluster's
// state (leader, isr, ...) are kept and resolved at injection time.
func Plan(rs RandomSchedule, brokers []int32) ([]Step, error) {
	p, err := PlanRandom(rs, brokers)
	return p.Steps, err
}

// Planned is a random schedule expanded: the steps, and in periods mode
// what each period drew (recorded in the schedule op's details).
type Planned struct {
	Steps   []Step   `json:"steps"`
	Periods []Period `json:"periods,omitempty"`
}

// Period is one period of a periods-mode schedule: the faults it drew (as
// the mix names them) and where its steps start in the plan.
type Period struct {
	Faults    []string `json:"faults"`
	FirstStep int      `json:"first_step"`
}

// PlanRandom is Plan with the periods drawn.
func PlanRandom(rs RandomSchedule, brokers []int32) (Planned, error) {
	if err := (&Schedule{Random: &rs}).Validate(); err != nil {
		return Planned{}, err
	}
	if len(brokers) == 0 {
		return Planned{}, fmt.Errorf("nemesis: random schedule: no brokers")
	}
	ids := slices.Clone(brokers)
	slices.Sort(ids)
	r := newPRNG(rs.Seed)
	if rs.Active > 0 && rs.Stagger > 0 {
		return planStaggered(r, rs, ids), nil
	}
	if rs.Active > 0 {
		return planPeriods(r, rs, ids), nil
	}
	cycles := int(rs.Duration / rs.Interval)
	var steps []Step
	for range cycles {
		st := planStep(r, rs, rs.Faults[r.intn(len(rs.Faults))], ids)
		steps = append(steps, st)
		heal := healFor(st.Fault)
		if heal == "" {
			steps = append(steps, Step{Wait: rs.Interval})
			continue
		}
		half := rs.Interval / 2
		jitter := Duration(r.intn(int(time.Duration(rs.Interval-half)/time.Millisecond)+1)) * Duration(time.Millisecond)
		hold := min(half+jitter, rs.Interval)
		steps = append(steps, Step{Wait: hold}, Step{Heal: heal})
		if rest := rs.Interval - hold; rest > 0 {
			steps = append(steps, Step{Wait: rest})
		}
	}
	return Planned{Steps: steps}, nil
}

// planPeriods is Jepsen's rotating combined nemesis: duration / (active +
// quiet) periods, each drawing Subset distinct faults of the mix (a name
// repeated in the mix counts once here), injecting them one after the
// other, holding them for Active (counted from the last injection, which
// itself takes time: a kill waits for the exit, a restart for the
// broker), healing each kind once, in the order injected, and staying
// quiet for Quiet.
func planPeriods(r *prng, rs RandomSchedule, ids []int32) Planned {
	names := distinctFaults(rs)
	subset := max(rs.Subset, 1)
	var out Planned
	for range int(rs.Duration / rs.period()) {
		p := Period{FirstStep: len(out.Steps)}
		var heals []string
		for _, i := range r.draw(len(names), subset) {
			st := planStep(r, rs, names[i], ids)
			p.Faults = append(p.Faults, names[i])
			out.Steps = append(out.Steps, st)
			if h := healFor(st.Fault); h != "" && !slices.Contains(heals, h) {
				heals = append(heals, h)
			}
		}
		out.Steps = append(out.Steps, Step{Wait: rs.Active})
		for _, h := range heals {
			out.Steps = append(out.Steps, Step{Heal: h})
		}
		if rs.Quiet > 0 {
			out.Steps = append(out.Steps, Step{Wait: rs.Quiet})
		}
		out.Periods = append(out.Periods, p)
	}
	return out
}

// validatePeriods checks the timing fields of a random schedule: interval
// mode (Interval) or periods mode (Active, Quiet, Subset), not both.
func validatePeriods(r *RandomSchedule, add AddFunc) {
	const p = "nemesis.random"
	if r.Active <= 0 {
		if r.Interval <= 0 {
			add(p+".interval", "must be positive (or give active and quiet for periods)")
		}
		if r.Duration < r.Interval {
			add(p+".duration", "%s is shorter than the interval %s", r.Duration, r.Interval)
		}
		if r.Subset != 0 {
			add(p+".subset", "only with active (periods of faults together)")
		}
		if r.Quiet != 0 {
			add(p+".quiet", "only with active (periods of faults together)")
		}
		if r.Stagger != 0 {
			add(p+".stagger", "only with active (periods of faults together)")
		}
		return
	}
	if r.Stagger < 0 {
		add(p+".stagger", "must not be negative")
	}
	if r.Interval != 0 {
		add(p+".interval", "not with active: a period is active + quiet")
	}
	if r.Quiet < 0 {
		add(p+".quiet", "must not be negative")
	}
	if period := r.period(); r.Duration < period {
		add(p+".duration", "%s is shorter than one period (%s)", r.Duration, r.periodText())
	}
	distinct := map[string]bool{}
	for _, f := range r.Faults {
		distinct[f] = true
	}
	if r.Subset < 0 {
		add(p+".subset", "must not be negative")
	} else if len(r.Faults) > 0 && r.Subset > len(distinct) {
		add(p+".subset", "%d faults per period, but the mix names only %d distinct", r.Subset, len(distinct))
	}
}

// planTarget picks a fault's target: the schedule's targets where they fit
// the fault, a per-fault default otherwise, with random roles drawn now.
func planTarget(r *prng, given *Target, links, anyBroker bool, shape string, brokers []int32) *Target {
	if anyBroker && given == nil {
		return nil
	}
	var t *Target
	if given != nil {
		c := *given
		c.Nodes = slices.Clone(given.Nodes)
		t = &c
	}
	switch {
	case links && shape == ShapeRacks:
		if t == nil || t.Role != RoleRack {
			return nil // every rack against every other
		}
	case links && shape == ShapeLeaderFollowers:
		if t == nil || t.Role != RoleLeader && t.Role != RoleShareCoordinator {
			t = &Target{Role: RoleLeader}
		}
	case links && slices.Contains(quorumShapes, shape):
		// A cut of controllers takes a controller role or ids (which the
		// scenario's validation checks are controllers); anything else
		// (no target, a broker role) cuts the active controller.
		if t == nil || t.Role != RoleNodes && !slices.Contains(ControllerRoles, t.Role) {
			t = &Target{Role: RoleActiveController}
		}
	case links && shape == ShapeMajorityMinority && t == nil:
		t = &Target{Role: RoleRandom, Count: max(1, (len(brokers)-1)/2)}
	case t == nil:
		t = &Target{Role: RoleRandom, Count: 1}
	}
	if t.Role == RoleRandom {
		t = &Target{Role: RoleNodes, Nodes: r.pick(brokers, max(t.Count, 1))}
	}
	return t
}

// prng is a seeded generator whose output is fixed by its algorithm (PCG)
// and by the derivations below, not by a library's choice of method: a
// seed recorded today must replay the same schedule after a Go upgrade.
type prng struct{ src *rand.PCG }

func newPRNG(seed int64) *prng {
	return &prng{src: rand.NewPCG(uint64(seed), uint64(seed)^0x6b636861_6f730000)}
}

// intn returns a number in [0, n). The modulo bias is negligible for the
// small n used here.
func (p *prng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(p.src.Uint64() % uint64(n))
}

// draw returns k distinct indexes of [0, n), in the order drawn, by a
// partial Fisher-Yates shuffle.
func (p *prng) draw(n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	k = min(k, n)
	for i := range k {
		j := i + p.intn(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx[:k]
}

// pick returns k distinct ids of from (sorted), by a partial Fisher-Yates
// shuffle.
func (p *prng) pick(from []int32, k int) []int32 {
	c := slices.Clone(from)
	k = min(k, len(c))
	for i := range k {
		j := i + p.intn(len(c)-i)
		c[i], c[j] = c[j], c[i]
	}
	out := c[:k]
	slices.Sort(out)
	return out
}

// randomDetails is the schedule op's record of a random schedule: its
// settings, the expanded plan and, in periods mode, each period's draw.
func randomDetails(rs RandomSchedule, p Planned) map[string]any {
	d := map[string]any{"mode": "random", "seed": rs.Seed, "duration": rs.Duration,
		"faults": rs.Faults, "plan": p.Steps}
	if rs.Active > 0 {
		d["mode"] = "random-periods"
		d["subset"], d["active"], d["quiet"], d["periods"] = max(rs.Subset, 1), rs.Active, rs.Quiet, p.Periods
		if rs.Stagger > 0 {
			d["mode"], d["stagger"] = "random-staggered", rs.Stagger
		}
	} else {
		d["interval"] = rs.Interval
	}
	return d
}

// distinctFaults is the schedule's fault names, each once, in the order
// first listed: the pool both periodic planners draw subsets from.
func distinctFaults(rs RandomSchedule) []string {
	var names []string
	for _, f := range rs.Faults {
		if !slices.Contains(names, f) {
			names = append(names, f)
		}
	}
	return names
}
