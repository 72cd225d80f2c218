package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
)

// quorum refuses controller faults that cannot resolve on the scenario's
// cluster, before any cluster starts: a role or shape that needs a second
// voter on a one-controller quorum (it would fail only when the step
// fires, after minutes of setup), and a shape that cuts controllers aimed
// at brokers.
func (w world) quorum(p string, st nemesis.Step, add addFunc) {
	shape := ""
	switch ps := st.Params.(type) {
	case *nemesis.PartitionParams:
		shape = ps.Shape
	case *nemesis.NetemParams:
		shape = ps.Shape
	}
	t := st.Target
	if t != nil && t.Role == nemesis.RoleControllerFollowers && w.controllers < 2 {
		add(p+".target.role", "%s: the cluster has %s (cluster.controllers), so the quorum has no followers; set cluster.controllers: 3",
			t.Role, controllersWord(w.controllers))
	}
	if !slices.Contains(nemesis.QuorumShapes, shape) {
		return
	}
	if shape == nemesis.ShapeFromVoters && w.controllers < 2 {
		add(p+".shape", "%s: the cluster has %s (cluster.controllers): no other voter to cut it from; set cluster.controllers: 3",
			shape, controllersWord(w.controllers))
	}
	if t == nil {
		return // the step's own validation names the missing target
	}
	switch {
	case t.Role == nemesis.RoleNodes:
		for _, id := range t.Nodes {
			if w.isBroker(id) {
				add(p+".target.nodes", "node %d is a broker: shape %s cuts controllers (%d..%d)", id, shape,
					cluster.ControllerIDBase, cluster.ControllerIDBase+w.controllers-1)
			}
		}
	case !slices.Contains(nemesis.ControllerRoles, t.Role):
		add(p+".target.role", "%s resolves to brokers: shape %s cuts controllers (want %s, or nodes with controller ids)",
			t.Role, shape, strings.Join(nemesis.ControllerRoles, ", "))
	}
}

// randomQuorum refuses a random mix that draws a cut of controllers on a
// one-controller cluster, naming the fault.
func (w world) randomQuorum(faults []string, add addFunc) {
	if w.controllers >= 2 {
		return
	}
	for i, f := range faults {
		for _, s := range []string{nemesis.ShapeFromVoters} {
			if strings.HasSuffix(f, "-"+s) {
				add(fmt.Sprintf("nemesis.random.faults[%d]", i), "%s: the cluster has %s (cluster.controllers): no other voter to cut it from; set cluster.controllers: 3",
					f, controllersWord(w.controllers))
			}
		}
	}
}

// controllersWord is for messages: "1 controller", "3 controllers".
func controllersWord(n int) string {
	if n == 1 {
		return "1 controller"
	}
	return fmt.Sprintf("%d controllers", n)
}
