package explore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
)

// The default schedule's periods: Jepsen's rotating combined nemesis,
// staggered. Each period draws two faults of the mix, injects them about
// 5 s apart (2.5-7.5 s), holds each 10 s from its own start, and then
// leaves the cluster 10 s of quiet to recover (nemesis.RandomSchedule's
// staggered periods). Staggered, because Kafka's sequence losses need one
// fault to strike after another took effect (the ISR shrinks to a cut-off
// leader after replica.lag.time.max.ms, 4 s here; then its death loses
// what it acked alone), which faults injected together never draw
// (nemesis TestStaggeredDrawsSequences: 141 of 200 staggered pairs, none
// unstaggered); a gap under 4 s still draws the together-ish cases.
const (
	defaultSubset  = 2
	defaultActive  = 10 * time.Second
	defaultQuiet   = 10 * time.Second
	defaultStagger = 5 * time.Second
)

// ParseFaults reads --faults: fault names, comma-separated. A value with
// no name (" , ") or a blank name in the list ("kill,,pause") is refused:
// an empty mix given is not the default mix.
func ParseFaults(v string) ([]string, error) {
	var out []string
	for i, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name == "" {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("--faults %q: name %d is blank: want fault names, comma-separated (e.g. kill,pause; %s)",
				v, i+1, strings.Join(nemesis.RandomFaultNames(), ", "))}
		}
		out = append(out, name)
	}
	return out, nil
}

// Explorable is s ready to explore: its own `random:` section, or else a
// staggered periods schedule over the workload's duration (at least one
// period)
// drawing from the default mix (nemesis.RandomMix: every fault a random
// schedule can draw that the scenario's backend can apply); faults, when
// given (--faults), replaces the mix. Its scripted steps are dropped: the
// runs explore, they do not retell the story. The seed is left for each
// run (WithSeed). Every error is a *scenario.BadInputError naming the
// flag or field.
func Explorable(s *scenario.Scenario, faults []string) (*scenario.Scenario, error) {
	bad := func(format string, args ...any) error {
		return &scenario.BadInputError{Err: fmt.Errorf(format, args...)}
	}
	for _, f := range faults {
		if !nemesis.IsRandomFault(f) {
			return nil, bad("--faults: %q is not a fault a random schedule can draw (want %s)", f, strings.Join(nemesis.RandomFaultNames(), ", "))
		}
	}
	can := nemesis.RandomMix(s.Cluster.Capabilities(), len(s.Cluster.Racks), s.Cluster.Controllers)
	for _, f := range faults {
		if !slices.Contains(can, f) {
			return nil, bad("--faults: %q: backend %s cannot apply it on this cluster (the cluster has %d rack(s) and %d controller(s); the faults it can: %s)",
				f, s.Cluster.BackendName(), len(s.Cluster.Racks), s.Cluster.Controllers, strings.Join(can, ", "))
		}
	}
	c := *s
	var r nemesis.RandomSchedule
	if s.Nemesis.Random != nil {
		r = *s.Nemesis.Random
	} else {
		period := defaultActive + defaultQuiet + (defaultSubset-1)*defaultStagger
		r = nemesis.RandomSchedule{Subset: defaultSubset, Active: nemesis.Duration(defaultActive), Quiet: nemesis.Duration(defaultQuiet),
			Stagger: nemesis.Duration(defaultStagger), Duration: nemesis.Duration(max(s.Workload.Duration.Std(), period))}
		r.Faults = can
	}
	if len(faults) > 0 {
		r.Faults = slices.Clone(faults)
	}
	if len(r.Faults) == 0 {
		return nil, bad("%s: the random mix is empty: backend %s can apply none of the faults a random schedule draws (%s)",
			s.Name, s.Cluster.BackendName(), strings.Join(nemesis.RandomFaultNames(), ", "))
	}
	distinct := map[string]bool{}
	for _, f := range r.Faults {
		distinct[f] = true
	}
	if r.Active > 0 {
		r.Subset = min(max(r.Subset, 1), len(distinct))
	}
	r.Seed = 0
	c.Seed = 0
	c.Nemesis = nemesis.Schedule{Random: &r}
	d, err := scenario.Derive(&c, s.Name+" (explored)", nil)
	if err != nil {
		if len(faults) > 0 {
			return nil, bad("--faults %s: %v", strings.Join(faults, ","), errors.Unwrap(err))
		}
		return nil, err
	}
	return d, nil
}

// withSeed is a copy of an explorable scenario whose run draws with seed.
func withSeed(s *scenario.Scenario, seed int64) *scenario.Scenario {
	c := *s
	c.Seed = 0
	if s.Nemesis.Random != nil {
		r := *s.Nemesis.Random
		r.Seed = 0
		c.Nemesis.Random = &r
	}
	c.SetSeed(seed)
	return &c
}
