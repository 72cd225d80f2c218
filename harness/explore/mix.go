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

// The default schedule's periods: Jepsen's rotating combined nemesis, two
// faults of the mix together for 10 s, then 10 s of quiet in which the
// cluster must recover (nemesis.RandomSchedule's periods mode).
const (
	DefaultSubset = 2
	DefaultActive = 10 * time.Second
	DefaultQuiet  = 10 * time.Second
)

// Explorable is s ready to explore: its own `random:` section, or else a
// periods schedule over the workload's duration (at least one period)
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
		period := DefaultActive + DefaultQuiet
		r = nemesis.RandomSchedule{Subset: DefaultSubset, Active: nemesis.Duration(DefaultActive), Quiet: nemesis.Duration(DefaultQuiet),
			Duration: nemesis.Duration(max(s.Workload.Duration.Std(), period))}
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

// WithSeed is a copy of an explorable scenario whose run draws with seed.
func WithSeed(s *scenario.Scenario, seed int64) *scenario.Scenario {
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
