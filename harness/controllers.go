package harness

import (
	"log/slog"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/scenario"
)

// controllersOf connects the observer to each controller's own listener
// (admin.Controllers says why the quorum is sampled there, not through a
// broker), on clusters whose listeners kchaos rendered: the Docker
// backend's. An SSH cluster's controller listeners are the operator's,
// at ports kchaos does not know, so there the samples go through a broker
// (nil).
func controllersOf(c cluster.Cluster, log *slog.Logger) *admin.Controllers {
	if b := c.Config().Backend; b != "" && b != scenario.BackendDocker {
		return nil
	}
	addrs := map[int32]string{}
	for _, n := range c.Controllers() {
		addrs[n.ID] = n.Addr()
	}
	if len(addrs) == 0 {
		return nil
	}
	ctrl, err := admin.NewControllers(addrs)
	if err != nil {
		log.Warn("quorum samples through a broker: " + err.Error())
		return nil
	}
	return ctrl
}
