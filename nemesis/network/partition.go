package network

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/nemesis"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// grudge says, for each node, the peers it must not exchange packets with.
// It is symmetric: a cut is installed on both ends, so it holds even when
// one end restarts with a fresh network namespace.
type grudge map[int32][]int32

// cut returns the grudge that separates every group from every other one
// (Jepsen's complete grudge); nodes in the same group stay connected.
func cut(groups ...[]int32) grudge {
	g := grudge{}
	for i, a := range groups {
		for j, b := range groups {
			if i == j {
				continue
			}
			for _, x := range a {
				for _, y := range b {
					if x != y && !slices.Contains(g[x], y) {
						g[x] = append(g[x], y)
					}
				}
			}
		}
	}
	for k := range g {
		slices.Sort(g[k])
	}
	return g
}

// partitionKind cuts links with iptables rules inside the nodes.
var partitionKind = nemesis.Kind{Name: histories.FPartition, Needs: cluster.NewCaps(cluster.CapPartition),
	New: func() nemesis.Params { return &PartitionParams{} }, Heal: partitionHeal, Color: "#4a7fc1",
	LosesAcked: nemesis.No, MovesLeaders: nemesis.Yes, Proof: nemesis.Proved, AvoidReads: staleReads, Bootstrap: true,
	Draw: &nemesis.Draw{Rank: 6, Shape: nemesis.ShapeIsolate, Shapes: drawnShapes(), Links: true,
		Params: func(_ nemesis.RandomSchedule, shape string) nemesis.Params { return &PartitionParams{Shape: shape} }}}

// shapeNames are the partition's shapes, in the order messages list
// them. The seam names each (nemesis.ShapeIsolate, ...): the random
// planner aims a drawn link fault by its shape.
var shapeNames = []string{nemesis.ShapeIsolate, nemesis.ShapeRacks, nemesis.ShapeLeaderFollowers,
	nemesis.ShapeFromController, nemesis.ShapeMajorityMinority, nemesis.ShapeBridge, nemesis.ShapeGroups,
	nemesis.ShapeFromVoters, nemesis.ShapeFromBrokers}

// drawnShapes are the shapes a random mix may name (partition-<shape>):
// every one but groups, whose groups are written by hand.
func drawnShapes() []string {
	return slices.DeleteFunc(slices.Clone(shapeNames), func(s string) bool { return s == nemesis.ShapeGroups })
}

// partitionHeal removes every kchaos rule (partitions and client cuts),
// second in a heal all: a node still down or paused is cleaned when it
// starts or resumes.
var partitionHeal = &nemesis.HealKind{Name: histories.FPartition, Rank: 2, Heal: func(ctx context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
	n, pending, err := healPartitions(ctx, e)
	d["rules_removed"] = n
	if len(pending) > 0 {
		d["deferred"] = pending
	}
	return nil, err
},
	// A node a heal could not reach is cleaned when it runs again, of
	// netem's qdiscs and loss rules too (rules.go: retryPending).
	Retry: retryPending, Pending: pendingNodes}

// staleReads is the partition's Kind.AvoidReads: the brokers it cut off
// from the controller are read last.
func staleReads(e *nemesis.Env) (skip, last map[int32]bool) {
	s := state(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	return nil, s.cutFromController
}

// PartitionParams are a partition's: the shape of the cut (default
// isolate) and, for shape groups, the groups.
type PartitionParams struct {
	// Shape is one of shapeNames.
	Shape string `yaml:"shape,omitempty"`
	// Groups are the node groups of shape groups, e.g. [[0], [2]]: every
	// group is cut from every other; nodes in no group keep all links.
	Groups [][]int32 `yaml:"groups,omitempty"`
}

func (pp *PartitionParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	validateLinks(p, st, pp.Shape, pp.Groups, add)
}

func (pp *PartitionParams) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	v.CheckGroups(p, pp.Groups, add)
	v.CheckQuorumShape(p, st, pp.Shape, add)
}

func (pp *PartitionParams) Build(st nemesis.Step) nemesis.Fault {
	return &partitionFault{shape: orIsolate(pp.Shape), target: st.Target, groups: pp.Groups}
}

// Label names a step by its shape ("partition racks"): the runner's
// labeler, exported so that the seam can call it.
func (pp *PartitionParams) Label(fault string) string { return shapeLabel(fault, pp.Shape) }

func shapeLabel(fault, shape string) string {
	if shape == "" {
		return fault
	}
	return fault + " " + shape
}

func orIsolate(shape string) string {
	if shape == "" {
		return nemesis.ShapeIsolate
	}
	return shape
}

// validateLinks checks the links a partition cuts or a netem degrades:
// the shape, its groups and the target it reads.
func validateLinks(p string, st *nemesis.Step, given string, groups [][]int32, add nemesis.AddFunc) {
	if given != "" && !slices.Contains(shapeNames, given) && !(st.Fault == histories.FNetem && given == ShapeClients) {
		add(p+".shape", "unknown shape %q (want %s)", given, strings.Join(shapeNames, ", "))
	}
	shape := orIsolate(given)
	if len(groups) > 0 && shape != nemesis.ShapeGroups {
		add(p+".groups", "only for fault partition or netem with shape groups")
	}
	switch shape {
	case nemesis.ShapeIsolate, nemesis.ShapeFromController, nemesis.ShapeMajorityMinority, nemesis.ShapeBridge, ShapeClients, nemesis.ShapeFromVoters, nemesis.ShapeFromBrokers:
		nemesis.NeedTarget(p, st, describeFault(st.Fault, shape), add)
	}
	if st.Target != nil {
		// Shapes that read one partition take a target that is only a
		// partition number.
		noRole := shape == nemesis.ShapeLeaderFollowers || shape == nemesis.ShapeRacks
		nemesis.ValidateTarget(p+".target", st.Target, noRole, shape == nemesis.ShapeRacks, add)
		if shape == nemesis.ShapeLeaderFollowers && st.Target.Role != "" && st.Target.Role != nemesis.RoleLeader && st.Target.Role != nemesis.RoleShareCoordinator {
			add(p+".target.role", "shape leader-followers takes role leader (or none) and a partition, or role %s", nemesis.RoleShareCoordinator)
		}
		if shape == nemesis.ShapeRacks && st.Target.Role != "" && st.Target.Role != nemesis.RoleRack {
			add(p+".target.role", "shape racks takes role rack (or none)")
		}
	}
	if shape == nemesis.ShapeGroups {
		validateGroups(p, groups, st, add)
	}
}

// partitionFault cuts the network along a shape.
type partitionFault struct {
	shape  string
	target *nemesis.Target
	groups [][]int32 // shape groups
	// What Inject did, for Prove.
	applied          grudge
	touched, skipped []int32
}

func (f *partitionFault) Name() string { return histories.FPartition }

func (f *partitionFault) Spec() map[string]any {
	if f.shape == nemesis.ShapeGroups {
		return map[string]any{"shape": f.shape, "groups": f.groups}
	}
	return map[string]any{"shape": f.shape, "target": f.target}
}

// grudge resolves the shape against the cluster as it is now.
func (f *partitionFault) grudge(ctx context.Context, e *nemesis.Env) (grudge, error) {
	all, brokers, ctrls := e.AllNodes(), e.BrokerIDs(), e.ControllerIDs()
	switch f.shape {
	case nemesis.ShapeIsolate, nemesis.ShapeMajorityMinority:
		// Isolate cuts the targets off from everyone else; majority-minority
		// is the same cut read the other way round (the targets are the
		// minority), kept as its own name because scenarios say so.
		ids, err := e.Resolve(ctx, f.target)
		if err != nil {
			return nil, err
		}
		if rest := without(all, ids); len(rest) == 0 {
			return nil, fmt.Errorf("targets %v are every node: nothing to cut them from", ids)
		}
		return cut(ids, without(all, ids)), nil
	case nemesis.ShapeRacks:
		// Controllers have no rack and stay connected to every rack: a
		// data-centre split where the metadata quorum sits outside.
		racks := map[string][]int32{}
		for _, b := range e.Cluster.Brokers() {
			racks[b.Rack] = append(racks[b.Rack], b.ID)
		}
		if f.target != nil && f.target.Rack != "" {
			side, ok := racks[f.target.Rack]
			if !ok {
				return nil, fmt.Errorf("rack %q has no brokers", f.target.Rack)
			}
			return cut(side, without(brokers, side)), nil
		}
		if len(racks) < 2 {
			return nil, fmt.Errorf("racks: the cluster has %d rack(s); need two or more", len(racks))
		}
		var groups [][]int32
		for _, name := range slices.Sorted(maps.Keys(racks)) {
			groups = append(groups, racks[name])
		}
		return cut(groups...), nil
	case nemesis.ShapeLeaderFollowers:
		// Only the leader's links to its followers are cut: both sides keep
		// the controller, so the leader stays leader and the followers stay
		// alive and unfenced, and the ISR shrinks to the leader alone
		// without any crash, replica.lag.time.max.ms after the leader has
		// records they lack (an idle follower that has everything stays in
		// the ISR however long it is silent: a workload must be writing).
		if f.target != nil && f.target.Role == nemesis.RoleShareCoordinator {
			// The leader of the __share_group_state partition that holds
			// the share group's state, from the other brokers: its
			// followers wherever that topic's replicas span every broker
			// (Kafka's default replication factor 3, kchaos's 3 brokers),
			// so the state's ISR shrinks to the coordinator alone.
			ids, err := e.Resolve(ctx, f.target)
			if err != nil {
				return nil, err
			}
			rest := without(brokers, ids)
			if len(rest) == 0 {
				return nil, fmt.Errorf("leader-followers: share coordinator %v is every broker: no follower to cut it from", ids)
			}
			return cut(ids, rest), nil
		}
		t := nemesis.Target{Role: nemesis.RoleLeader}
		if f.target != nil {
			t.Partition = f.target.Partition
		}
		roles, err := e.ResolvePartitionRoles(ctx, t.Partition, nemesis.RoleLeader, nemesis.RoleFollowers)
		if err != nil {
			return nil, err
		}
		return cut(roles[0], roles[1]), nil
	case nemesis.ShapeFromController:
		// The targets cannot heartbeat, so the controller fences them after
		// broker.session.timeout.ms; clients can still reach them.
		ids, err := e.Resolve(ctx, f.target)
		if err != nil {
			return nil, err
		}
		ids = without(ids, ctrls)
		if len(ids) == 0 {
			return nil, fmt.Errorf("from-controller: targets are controllers")
		}
		return cut(ids, ctrls), nil
	case nemesis.ShapeFromVoters, nemesis.ShapeFromBrokers:
		return quorumGrudge(ctx, e, f.shape, f.target) // below: the quorum shapes
	case nemesis.ShapeGroups:
		// Explicit groups, for a cut no role describes (S3 makes broker 2
		// lag alone before the leader loses both followers).
		if len(f.groups) < 2 {
			return nil, fmt.Errorf("groups: need two or more groups")
		}
		for _, g := range f.groups {
			for _, id := range g {
				if _, ok := e.Cluster.Node(id); !ok {
					return nil, fmt.Errorf("groups: node %d is not in this run", id)
				}
			}
		}
		return cut(f.groups...), nil
	case nemesis.ShapeBridge:
		// The targets are the bridge: the other brokers, in id order, are
		// split into two halves that cannot talk to each other but both
		// talk to the bridge (connectivity that is not transitive: 0-1 and
		// 1-2 work, 0-2 does not). Controllers stay connected to all, so no
		// broker is fenced and only replication paths change.
		bridge, err := e.Resolve(ctx, f.target)
		if err != nil {
			return nil, err
		}
		rest := without(brokers, bridge)
		if len(rest) < 2 {
			return nil, fmt.Errorf("bridge: %d broker(s) besides the bridge; need two or more", len(rest))
		}
		return cut(rest[:len(rest)/2], rest[len(rest)/2:]), nil
	}
	return nil, fmt.Errorf("unknown shape %q", f.shape)
}

// Inject installs the grudge. A node that is not running or is paused
// cannot take rules; it is skipped (its peers' rules still cut both
// directions) and reported.
func (f *partitionFault) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	g, err := f.grudge(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	details := map[string]any{"shape": f.shape, "grudge": grudgeJSON(g)}
	var touched, skipped []int32
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(g)) {
		if !e.RunsUnpaused(ctx, id) {
			skipped = append(skipped, id)
			continue
		}
		script, err := dropScript(e, id, g[id])
		if err == nil {
			_, err = e.Cluster.Exec(ctx, id, "sh", "-c", script)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		touched = append(touched, id)
	}
	if len(skipped) > 0 {
		details["skipped"] = skipped
	}
	f.applied, f.touched, f.skipped = g, touched, skipped
	markCut(e, g)
	return touched, details, errors.Join(errs...)
}

// markCut remembers the brokers a grudge cuts off from a controller: their
// metadata goes stale, so state reads avoid them.
func markCut(e *nemesis.Env, g grudge) {
	ctrls := e.ControllerIDs()
	var ids []int32
	for id, peers := range g {
		if !slices.Contains(ctrls, id) && slices.ContainsFunc(peers, func(p int32) bool { return slices.Contains(ctrls, p) }) {
			ids = append(ids, id)
		}
	}
	s := state(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cutFromController = withIDs(s.cutFromController, ids, true)
}

// Heal removes every kchaos rule on every node of the run.
func (f *partitionFault) Heal(ctx context.Context, e *nemesis.Env) error {
	_, _, err := healPartitions(ctx, e)
	return err
}

func grudgeJSON(g grudge) map[string][]int32 {
	out := map[string][]int32{}
	for k, v := range g {
		out[histories.PartitionKey(k)] = v
	}
	return out
}

// quorumGrudge is the cut of shapes from-voters and from-brokers: the
// targets, which must be controllers, against the other controllers or
// against the brokers.
func quorumGrudge(ctx context.Context, e *nemesis.Env, shape string, t *nemesis.Target) (grudge, error) {
	ids, err := e.Resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	ctrls := e.ControllerIDs()
	if brokers := without(ids, ctrls); len(brokers) > 0 {
		return nil, fmt.Errorf("%s: targets %v are brokers, not controllers", shape, brokers)
	}
	other := e.BrokerIDs()
	if shape == nemesis.ShapeFromVoters {
		other = without(ctrls, ids)
	}
	if len(other) == 0 {
		return nil, fmt.Errorf("%s: no node to cut controllers %v from", shape, ids)
	}
	return cut(ids, other), nil
}

// validateGroups checks shape groups' groups: two or more, none empty, no
// node in two.
func validateGroups(p string, groups [][]int32, st *nemesis.Step, add nemesis.AddFunc) {
	if len(groups) < 2 {
		add(p+".groups", "shape groups needs two or more groups")
	}
	seen := map[int32]int{}
	for i, g := range groups {
		if len(g) == 0 {
			add(fmt.Sprintf("%s.groups[%d]", p, i), "empty group")
		}
		for _, id := range g {
			if j, dup := seen[id]; dup && j != i {
				add(fmt.Sprintf("%s.groups[%d]", p, i), "node %d is also in group %d", id, j)
			}
			seen[id] = i
		}
	}
	if st.Target != nil {
		add(p+".target", "shape groups names its nodes in groups, not a target")
	}
}

// describeFault names a link fault with its shape, for messages
// ("partition (shape isolate)").
func describeFault(f, shape string) string {
	if f == histories.FPartition || f == histories.FNetem {
		return f + " (shape " + shape + ")"
	}
	return f
}
