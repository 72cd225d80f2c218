package nemesis

import (
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// RandomMix is the default mix of a random schedule (kchaos explore
// without a `random:` section or --faults): every fault a random schedule
// can draw (the ones a heal undoes, randomFault) whose needs the backend
// declares in caps, so that the mix grows with the registry and never
// holds a fault the backend would refuse. The racks shapes need two racks
// or more (racks: the cluster's rack count), as their grudge does, and the
// shapes that cut controllers (quorumShapes) two controllers or more.
func RandomMix(caps cluster.Caps, racks, controllers int) []string {
	var out []string
	for _, name := range randomFaultNames() {
		fault, shape, _ := randomFault(name)
		if shape == ShapeRacks && racks < 2 || slices.Contains(quorumShapes, shape) && controllers < 2 {
			continue
		}
		st := planStep(newPRNG(1), RandomSchedule{}, name, []int32{0})
		if st.Fault != fault || !caps.Has(st.Needs()) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// RandomFaultNames are the names a random schedule's mix may hold, for
// messages that list them.
func RandomFaultNames() []string { return slices.Clone(randomFaultNames()) }

// IsRandomFault reports whether name may be in a random schedule's mix.
func IsRandomFault(name string) bool {
	_, _, ok := randomFault(strings.TrimSpace(name))
	return ok
}
