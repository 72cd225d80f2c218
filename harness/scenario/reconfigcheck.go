package scenario

import (
	"fmt"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// reconfig refuses quorum reconfiguration steps that cannot work on the
// scenario's cluster, before any cluster starts: add-controller and
// remove-controller on a static quorum (Kafka answers
// UNSUPPORTED_VERSION on kraft.version 0), a remove-controller that would
// leave no voter, and an add-controller with no controller outside the
// voter set to add (no spare left, none removed before). It follows the
// scripted steps in order: the voters start as cluster.controllers, the
// controllers outside the set as the spares.
func (w world) reconfig(steps []nemesis.Step, add addFunc) {
	voters, outside := w.controllers, w.spares
	for i, st := range steps {
		if st.Fault != histories.FAddController && st.Fault != histories.FRemoveController {
			continue
		}
		p := fmt.Sprintf("nemesis.steps[%d]", i)
		if !w.dynamic {
			add(p+".fault", "%s changes the voter set, which a static quorum cannot: set cluster.quorum.dynamic: true (Kafka 3.9+)", st.Fault)
			continue
		}
		switch st.Fault {
		case histories.FRemoveController:
			if voters <= 1 {
				add(p+".fault", "remove-controller would leave no voter (the quorum has %d at this step)", voters)
				continue
			}
			voters, outside = voters-1, outside+1
		case histories.FAddController:
			if outside == 0 {
				add(p+".fault", "add-controller: no controller outside the voter set at this step (no spare, none removed before): set cluster.quorum.spare_controllers, or remove one first")
				continue
			}
			if t := st.Target; t != nil {
				for _, id := range t.Nodes {
					if w.isBroker(id) {
						add(p+".target.nodes", "node %d is a broker: add-controller adds a controller (%s)", id, w.nodes())
					}
				}
			}
			voters, outside = voters+1, outside-1
		}
	}
}
