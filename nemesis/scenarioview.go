package nemesis

import (
	"fmt"

	"github.com/kchaos/kchaos/cluster"
)

// ScenarioView is what a fault step is checked against beyond its own
// fields: the scenario's cluster, topic, workload and backend, as plain
// values, so that each kind's parameters validate themselves against the
// whole scenario where the knowledge lives (here, next to the fault)
// without this package importing the harness that owns the scenario.
type ScenarioView struct {
	// Kafka is the release the cluster starts on (cluster.kafka,
	// resolved: "4.3.2"; "" when it does not resolve, which the cluster's
	// own validation names).
	Kafka string
	// Backend names the backend and Caps is what it can do.
	Backend string
	Caps    cluster.Caps
	// Brokers, Controllers and Spares (a dynamic quorum's controllers
	// beyond the initial voters) size the cluster.
	Brokers, Controllers, Spares int
	// Partitions is the workload topic's partition count and Assignment
	// its replicas per partition (nil when the topic's sizes are out of
	// bounds: the topic's own validation names them).
	Partitions int
	Assignment [][]int32
	// Racks names the cluster's racks; Dynamic says the quorum's voter set
	// may change (KIP-853).
	Racks   []string
	Dynamic bool
	// LogDirs is the brokers' log dirs per broker (at least 1); OwnLogDirs
	// says kchaos lays them out (Docker), so a dir index can be checked.
	LogDirs    int
	OwnLogDirs bool
	// Producers is the workload's producer count; Transactional says they
	// are transactional.
	Producers     int
	Transactional bool
	// Group and Shares say the workload has a consumer group or a share
	// group; Members are their members' names.
	Group, Shares bool
	Members       []string
	// ClientRoles are the workload's client roles, each with the prefix
	// of its clients' ids (workloads.ClientIDPrefixes): what a request
	// fault may select.
	ClientRoles map[string]string
	// LinkFault names the schedule's first fault that acts on the nodes'
	// links by their addresses (Schedule.LinkFault), or "".
	LinkFault string
	// LogAppendTime says the topic's records carry the broker's append
	// time (message.timestamp.type: LogAppendTime).
	LogAppendTime bool
}

// ScenarioChecker is implemented by parameters whose rules need the
// scenario: they report each problem under the step's path p.
type ScenarioChecker interface {
	CheckAgainst(p string, st *Step, v *ScenarioView, add AddFunc)
}

// checkScenario reports a fault step's problems against the scenario v
// under its path p, as its kind's parameters see them (none for a kind
// without such rules, or a step Validate refuses).
func (st *Step) checkScenario(p string, v *ScenarioView, add func(path, format string, args ...any)) {
	if _, params, err := st.params(); err == nil {
		if c, ok := params.(ScenarioChecker); ok {
			c.CheckAgainst(p, st, v, add)
		}
	}
}

// IsBroker and isNode say whether an id names a broker (a node) of the
// scenario.
func (v *ScenarioView) IsBroker(id int32) bool { return id >= 0 && int(id) < v.Brokers }

func (v *ScenarioView) isNode(id int32) bool {
	return v.IsBroker(id) || (id >= cluster.ControllerIDBase && int(id) < cluster.ControllerIDBase+v.Controllers+v.Spares)
}

// nodes names the scenario's nodes, for messages.
func (v *ScenarioView) nodes() string {
	return fmt.Sprintf("brokers 0..%d, controllers %d..%d", v.Brokers-1, cluster.ControllerIDBase, cluster.ControllerIDBase+v.Controllers+v.Spares-1)
}

// CheckGroups refuses a link fault's groups that name no node: exported
// for the kinds that take groups (nemesis/network's partition and netem),
// whose CheckAgainst calls it.
func (v *ScenarioView) CheckGroups(p string, groups [][]int32, add AddFunc) {
	for i, g := range groups {
		for _, id := range g {
			if !v.isNode(id) {
				add(fmt.Sprintf("%s.groups[%d]", p, i), "node %d does not exist (%s)", id, v.nodes())
			}
		}
	}
}

// healKind is the registered heal kind name (nil: none, or all).
func healKind(name string) *HealKind {
	for _, h := range heals() {
		if h.Name == name {
			return h
		}
	}
	return nil
}
