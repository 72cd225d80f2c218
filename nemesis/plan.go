package nemesis

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// randomFault maps a name of a random schedule's fault mix to a fault and
// a partition shape. Only faults that a heal undoes (or that undo
// themselves, like restart) may be drawn: a random run must not leave the
// cluster in a state that no later step repairs.
func randomFault(name string) (fault, shape string, ok bool) {
	switch name {
	case FPause, FKill, FRestart, FLoseUnflushed:
		return name, "", true
	case FPartition:
		return FPartition, ShapeIsolate, true
	}
	// Shape groups is left out: its groups are written by hand.
	if s, found := strings.CutPrefix(name, FPartition+"-"); found && slices.Contains(shapeNames, s) && s != ShapeGroups {
		return FPartition, s, true
	}
	return "", "", false
}

func randomFaultNames() []string {
	out := []string{FPause, FKill, FRestart, FLoseUnflushed, FPartition}
	for _, s := range shapeNames {
		if s != ShapeGroups {
			out = append(out, FPartition+"-"+s)
		}
	}
	return out
}

// healFor is the heal that undoes a random fault ("" when none is needed).
func healFor(fault string) string {
	f, _ := histories.LookupFault(fault)
	return f.Heal
}

// Plan expands a random schedule into scripted steps, as a pure function of
// the schedule and the broker ids, so that the same seed gives the same
// run (and a test can check it). Each interval injects one fault drawn
// from the mix, holds it for a random time between half and all of the
// interval, heals it, and waits out the rest of the interval.
//
// Random choices are made here, not when the fault fires: a `random`
// target becomes explicit node ids. Roles that depend on the cluster's
// state (leader, isr, ...) are kept and resolved at injection time.
func Plan(rs RandomSchedule, brokers []int32) ([]Step, error) {
	if err := (&Schedule{Random: &rs}).Validate(); err != nil {
		return nil, err
	}
	if len(brokers) == 0 {
		return nil, fmt.Errorf("nemesis: random schedule: no brokers")
	}
	ids := slices.Clone(brokers)
	slices.Sort(ids)
	r := newPRNG(rs.Seed)
	cycles := int(rs.Duration / rs.Interval)
	var steps []Step
	for range cycles {
		fault, shape, _ := randomFault(rs.Faults[r.intn(len(rs.Faults))])
		steps = append(steps, Step{Fault: fault, Shape: shape, Target: planTarget(r, rs.Targets, fault, shape, ids)})
		heal := healFor(fault)
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
	return steps, nil
}

// planTarget picks a fault's target: the schedule's targets where they fit
// the fault, a per-fault default otherwise, with random roles drawn now.
func planTarget(r *prng, given *Target, fault, shape string, brokers []int32) *Target {
	var t *Target
	if given != nil {
		c := *given
		c.Nodes = slices.Clone(given.Nodes)
		t = &c
	}
	switch {
	case fault == FPartition && shape == ShapeRacks:
		if t == nil || t.Role != RoleRack {
			return nil // every rack against every other
		}
	case fault == FPartition && shape == ShapeLeaderFollowers:
		if t == nil || t.Role != RoleLeader {
			t = &Target{Role: RoleLeader}
		}
	case fault == FPartition && shape == ShapeMajorityMinority && t == nil:
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
