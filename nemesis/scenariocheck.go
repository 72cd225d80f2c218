package nemesis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// The rules a schedule's steps must meet against the whole scenario
// (ScenarioView), written here beside the targets, conditions and shapes
// they are about, so that the harness's Validate only builds the view and
// asks. Each kind's own rules are its parameters' CheckAgainst, in the
// kind's file.

// CheckScenario reports every problem of the schedule against the
// scenario v, each under its field's path: the targets, the fault kinds'
// own rules (scenarioChecker), the heals', the untils', the quorum shapes',
// the random mix's and the voter changes' in order. A step that could only
// fail when it fires, minutes into a run, is refused before any cluster
// starts.
func (s *Schedule) CheckScenario(v ScenarioView) []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		p := fmt.Sprintf("nemesis.steps[%d]", i)
		if st.Target != nil {
			v.checkTarget(p+".target", st.Target, add)
		}
		if h := healKind(st.Heal); h != nil && h.Check != nil {
			h.Check(p, st, &v, add)
		}
		if st.Fault != "" {
			st.checkScenario(p, &v, add)
		}
		if st.Until != nil {
			v.checkCondition(p+".until", st.Until, add)
		}
	}
	for i := range s.Bootstrap {
		// Only a bootstrap step's target names what the scenario may lack
		// (a node, the quorum's followers); its kinds, conditions and
		// roles are few (validateBootstrap).
		if st := &s.Bootstrap[i]; st.Target != nil {
			v.checkTarget(fmt.Sprintf("nemesis.bootstrap[%d].target", i), st.Target, add)
		}
	}
	if r := s.Random; r != nil {
		if r.Targets != nil {
			v.checkTarget("nemesis.random.targets", r.Targets, add)
		}
		v.checkRandomQuorum(r.Faults, add)
	}
	v.checkReconfig(s.Steps, add)
	return errs
}

// checkTarget refuses a target naming what the scenario lacks: a
// partition, node or rack it does not have, more random brokers than it
// has, and a role the workload or the quorum cannot resolve.
func (v *ScenarioView) checkTarget(p string, t *Target, add AddFunc) {
	v.checkPartition(p+".partition", t.Partition, add)
	for _, id := range t.Nodes {
		if !v.isNode(id) {
			add(p+".nodes", "node %d does not exist (%s)", id, v.nodes())
		}
	}
	if t.Rack != "" && !slices.Contains(v.Racks, t.Rack) {
		add(p+".rack", "%q: the cluster has no such rack (cluster.racks: %s)", t.Rack, v.rackNames())
	}
	if t.Role == RoleRandom && t.Count > v.Brokers {
		add(p+".count", "%d: the cluster has %d brokers", t.Count, v.Brokers)
	}
	v.checkRoleCount(p+".count", t, add)
	switch {
	case t.Role == RoleTxnCoordinator && !v.Transactional:
		add(p+".role", "%s needs workload.transactions.enabled: the workload has no transactional id", t.Role)
	case (t.Role == RoleGroupCoordinator || t.Role == RoleGroupCoordinatorFollowers) && !v.Group:
		add(p+".role", "%s needs workload.group: the workload has no consumer group", t.Role)
	case t.Role == RoleShareCoordinator && !v.Shares:
		add(p+".role", "%s needs workload.shares: the workload has no share group", t.Role)
	case t.Role == RoleControllerFollowers && v.Controllers < 2:
		add(p+".role", "%s: the cluster has %s (cluster.controllers), so the quorum has no followers; set cluster.controllers: 3",
			t.Role, controllersWord(v.Controllers))
	}
}

// checkRoleCount refuses a count of a partition role larger than the
// role can ever be (the partition's replicas, less the leader for
// followers and out-of-isr: the leader is always in the ISR): it could
// never strike that many, so it is a mistake about the topic (at the
// strike, a role with fewer members than the count strikes them all).
func (v *ScenarioView) checkRoleCount(p string, t *Target, add AddFunc) {
	if t.Count <= 0 || t.Role == RoleRandom || t.Partition < 0 || int(t.Partition) >= len(v.Assignment) {
		return
	}
	replicas := len(v.Assignment[t.Partition])
	most := replicas - 1
	if t.Role == RoleISR {
		most = replicas
	}
	if t.Count > most {
		add(p, "%d: partition %d has %d replicas, so %s has at most %d members",
			t.Count, t.Partition, replicas, t.Role, most)
	}
}

// checkPartition refuses a partition the topic does not have; it says
// whether n names one of the topic's partitions (negative: none named).
func (v *ScenarioView) checkPartition(p string, n int32, add AddFunc) bool {
	if n >= 0 && int(n) >= v.Partitions {
		add(p, "%d: the topic has partitions 0..%d", n, v.Partitions-1)
		return false
	}
	return n >= 0
}

// checkCondition refuses an until naming brokers that do not exist or,
// for its isr and leader, that are not replicas of its partition, and a
// share-group condition without a share group.
func (v *ScenarioView) checkCondition(p string, c *Condition, add AddFunc) {
	if c.ShareStart != nil && !v.Shares {
		add(p+".share_start_offset", "needs workload.shares: the workload has no share group")
	}
	if !v.checkPartition(p+".partition", c.Partition, add) {
		return
	}
	var replicas []int32
	if int(c.Partition) < len(v.Assignment) {
		replicas = v.Assignment[c.Partition]
	}
	onReplica := func(field string, ids []int32) {
		for _, id := range ids {
			if !v.IsBroker(id) {
				add(p+"."+field, "broker %d does not exist (brokers 0..%d)", id, v.Brokers-1)
			} else if (field == "isr" || field == "leader") && replicas != nil && !slices.Contains(replicas, id) {
				add(p+"."+field, "broker %d is not a replica of partition %d (replicas %v)", id, c.Partition, replicas)
			}
		}
	}
	onReplica("isr", c.ISR)
	if c.Leader != nil && *c.Leader != -1 {
		onReplica("leader", []int32{*c.Leader})
	}
	onReplica("live", c.Live)
	onReplica("fenced", c.Fenced)
}

// checkQuorumShape refuses a link fault's quorum shape that cannot
// resolve on the scenario's cluster (a cut from the other voters on a
// one-controller quorum) or that cuts controllers but is aimed at brokers.
// The partition and netem kinds call it from their CheckAgainst, so it
// is exported for their room (nemesis/network).
func (v *ScenarioView) CheckQuorumShape(p string, st *Step, shape string, add AddFunc) {
	if !slices.Contains(quorumShapes, shape) {
		return
	}
	if shape == ShapeFromVoters && v.Controllers < 2 {
		add(p+".shape", "%s: the cluster has %s (cluster.controllers): no other voter to cut it from; set cluster.controllers: 3",
			shape, controllersWord(v.Controllers))
	}
	t := st.Target
	if t == nil {
		return // the step's own validation names the missing target
	}
	switch {
	case t.Role == RoleNodes:
		for _, id := range t.Nodes {
			if v.IsBroker(id) {
				add(p+".target.nodes", "node %d is a broker: shape %s cuts controllers (%d..%d)", id, shape,
					cluster.ControllerIDBase, cluster.ControllerIDBase+v.Controllers-1)
			}
		}
	case !slices.Contains(ControllerRoles, t.Role):
		add(p+".target.role", "%s resolves to brokers: shape %s cuts controllers (want %s, or nodes with controller ids)",
			t.Role, shape, strings.Join(ControllerRoles, ", "))
	}
}

// checkRandomQuorum refuses a random mix that draws a cut of controllers
// on a one-controller cluster, naming the fault.
func (v *ScenarioView) checkRandomQuorum(faults []string, add AddFunc) {
	if v.Controllers >= 2 {
		return
	}
	for i, f := range faults {
		if strings.HasSuffix(f, "-"+ShapeFromVoters) {
			add(fmt.Sprintf("nemesis.random.faults[%d]", i), "%s: the cluster has %s (cluster.controllers): no other voter to cut it from; set cluster.controllers: 3",
				f, controllersWord(v.Controllers))
		}
	}
}

// checkReconfig refuses voter changes that cannot work on the scenario's
// cluster: a kind's that changes the voter set (Kind.VoterChange:
// nemesis/quorum's add-controller and remove-controller) on a static
// quorum (Kafka answers UNSUPPORTED_VERSION on kraft.version 0), a
// removal that would leave no voter, and an addition with no controller
// outside the voter set to add (no spare left, none removed before) or
// aimed at a broker. It follows the scripted steps in order: the voters
// start as the controllers, the controllers outside the set as the
// spares.
func (v *ScenarioView) checkReconfig(steps []Step, add AddFunc) {
	voters, outside := v.Controllers, v.Spares
	for i, st := range steps {
		k, ok := LookupKind(st.Fault)
		if !ok || k.VoterChange == 0 {
			continue
		}
		p := fmt.Sprintf("nemesis.steps[%d]", i)
		if !v.Dynamic {
			add(p+".fault", "%s changes the voter set, which a static quorum cannot: set cluster.quorum.dynamic: true (Kafka 3.9+)", st.Fault)
			continue
		}
		switch {
		case k.VoterChange < 0:
			if voters <= 1 {
				add(p+".fault", "%s would leave no voter (the quorum has %d at this step)", st.Fault, voters)
				continue
			}
			voters, outside = voters-1, outside+1
		default:
			if outside == 0 {
				add(p+".fault", "%s: no controller outside the voter set at this step (no spare, none removed before): set cluster.quorum.spare_controllers, or remove one first", st.Fault)
				continue
			}
			if t := st.Target; t != nil {
				for _, id := range t.Nodes {
					if v.IsBroker(id) {
						add(p+".target.nodes", "node %d is a broker: %s adds a controller (%s)", id, st.Fault, v.nodes())
					}
				}
			}
			voters, outside = voters+1, outside-1
		}
	}
}

// rackNames names the cluster's racks, for messages.
func (v *ScenarioView) rackNames() string {
	if len(v.Racks) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(slices.Values(v.Racks)), ", ")
}

// controllersWord is for messages: "1 controller", "3 controllers".
func controllersWord(n int) string {
	if n == 1 {
		return "1 controller"
	}
	return fmt.Sprintf("%d controllers", n)
}
