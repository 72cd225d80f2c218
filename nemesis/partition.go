package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// RuleComment tags every iptables rule kchaos adds, so that a heal removes
// exactly those and never a rule that Docker or a user put there.
const RuleComment = "kchaos"

// Grudge says, for each node, the peers it must not exchange packets with.
// It is symmetric: a cut is installed on both ends, so it holds even when
// one end restarts with a fresh network namespace.
type Grudge map[int32][]int32

// cut returns the grudge that separates every group from every other one
// (Jepsen's complete grudge); nodes in the same group stay connected.
func cut(groups ...[]int32) Grudge {
	g := Grudge{}
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

func without(all, drop []int32) []int32 {
	var out []int32
	for _, id := range all {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return out
}

// partitionKind cuts links with iptables rules inside the nodes.
var partitionKind = Kind{Name: histories.FPartition, Needs: cluster.NewCaps(cluster.CapPartition),
	New: func() Params { return &PartitionParams{} }, Heal: partitionHeal, Color: "#4a7fc1",
	LosesAcked: No, MovesLeaders: Yes, Proof: Proved,
	Draw: &Draw{Rank: 6, Shape: ShapeIsolate, Shapes: drawnShapes(), Links: true,
		Params: func(_ RandomSchedule, shape string) Params { return &PartitionParams{Shape: shape} }}}

// drawnShapes are the shapes a random mix may name (partition-<shape>):
// every one but groups, whose groups are written by hand.
func drawnShapes() []string {
	return slices.DeleteFunc(slices.Clone(shapeNames), func(s string) bool { return s == ShapeGroups })
}

// partitionHeal removes every kchaos rule (partitions and client cuts),
// second in a heal all: a node still down or paused is cleaned when it
// starts or resumes.
var partitionHeal = &HealKind{Name: histories.FPartition, Rank: 2, Heal: func(ctx context.Context, e *Env, d map[string]any) ([]int32, error) {
	n, pending, err := e.healPartitions(ctx)
	d["rules_removed"] = n
	if len(pending) > 0 {
		d["deferred"] = pending
	}
	return nil, err
}}

// PartitionParams are a partition's: the shape of the cut (default
// isolate) and, for shape groups, the groups.
type PartitionParams struct {
	// Shape is one of shapeNames.
	Shape string `yaml:"shape,omitempty"`
	// Groups are the node groups of shape groups, e.g. [[0], [2]]: every
	// group is cut from every other; nodes in no group keep all links.
	Groups [][]int32 `yaml:"groups,omitempty"`
}

func (pp *PartitionParams) Validate(p string, st *Step, add AddFunc) {
	validateLinks(p, st, pp.Shape, pp.Groups, add)
}

func (pp *PartitionParams) CheckAgainst(p string, st *Step, v *ScenarioView, add AddFunc) {
	v.checkGroups(p, pp.Groups, add)
	v.checkQuorumShape(p, st, pp.Shape, add)
}

func (pp *PartitionParams) Build(st Step) Fault {
	return &partitionFault{shape: orIsolate(pp.Shape), target: st.Target, groups: pp.Groups}
}

// label names a step by its shape ("partition racks").
func (pp *PartitionParams) label(fault string) string { return shapeLabel(fault, pp.Shape) }

func shapeLabel(fault, shape string) string {
	if shape == "" {
		return fault
	}
	return fault + " " + shape
}

func orIsolate(shape string) string {
	if shape == "" {
		return ShapeIsolate
	}
	return shape
}

// validateLinks checks the links a partition cuts or a netem degrades:
// the shape, its groups and the target it reads.
func validateLinks(p string, st *Step, given string, groups [][]int32, add AddFunc) {
	if given != "" && !slices.Contains(shapeNames, given) && !(st.Fault == histories.FNetem && given == ShapeClients) {
		add(p+".shape", "unknown shape %q (want %s)", given, strings.Join(shapeNames, ", "))
	}
	shape := orIsolate(given)
	if len(groups) > 0 && shape != ShapeGroups {
		add(p+".groups", "only for fault partition or netem with shape groups")
	}
	switch shape {
	case ShapeIsolate, ShapeFromController, ShapeMajorityMinority, ShapeClients, ShapeFromVoters, ShapeFromBrokers:
		needTarget(p, st, describeFault(st.Fault, shape), add)
	}
	if st.Target != nil {
		// Shapes that read one partition take a target that is only a
		// partition number.
		noRole := shape == ShapeLeaderFollowers || shape == ShapeRacks
		validateTarget(p+".target", st.Target, noRole, shape == ShapeRacks, add)
		if shape == ShapeLeaderFollowers && st.Target.Role != "" && st.Target.Role != RoleLeader && st.Target.Role != RoleShareCoordinator {
			add(p+".target.role", "shape leader-followers takes role leader (or none) and a partition, or role %s", RoleShareCoordinator)
		}
		if shape == ShapeRacks && st.Target.Role != "" && st.Target.Role != RoleRack {
			add(p+".target.role", "shape racks takes role rack (or none)")
		}
	}
	if shape == ShapeGroups {
		validateGroups(p, groups, st, add)
	}
}

// partitionFault cuts the network along a shape.
type partitionFault struct {
	shape  string
	target *Target
	groups [][]int32 // shape groups
	// What Inject did, for Prove.
	applied          Grudge
	touched, skipped []int32
}

func (f *partitionFault) Name() string { return histories.FPartition }

func (f *partitionFault) Spec() map[string]any {
	if f.shape == ShapeGroups {
		return map[string]any{"shape": f.shape, "groups": f.groups}
	}
	return map[string]any{"shape": f.shape, "target": f.target}
}

// grudge resolves the shape against the cluster as it is now.
func (f *partitionFault) grudge(ctx context.Context, e *Env) (Grudge, error) {
	all, brokers, ctrls := e.AllNodes(), e.BrokerIDs(), e.ControllerIDs()
	switch f.shape {
	case ShapeIsolate, ShapeMajorityMinority:
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
	case ShapeRacks:
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
	case ShapeLeaderFollowers:
		// Only the leader's links to its followers are cut: both sides keep
		// the controller, so the leader stays leader and the followers stay
		// alive and unfenced, and the ISR shrinks to the leader alone
		// without any crash, replica.lag.time.max.ms after the leader has
		// records they lack (an idle follower that has everything stays in
		// the ISR however long it is silent: a workload must be writing).
		if f.target != nil && f.target.Role == RoleShareCoordinator {
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
		t := Target{Role: RoleLeader}
		if f.target != nil {
			t.Partition = f.target.Partition
		}
		p, err := e.partition(ctx, t.Partition)
		if err != nil {
			return nil, err
		}
		leader, err := partitionRole(p, RoleLeader)
		if err != nil {
			return nil, err
		}
		followers, err := partitionRole(p, RoleFollowers)
		if err != nil {
			return nil, err
		}
		return cut(leader, followers), nil
	case ShapeFromController:
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
	case ShapeFromVoters, ShapeFromBrokers:
		return e.quorumGrudge(ctx, f.shape, f.target) // quorumtarget.go
	case ShapeGroups:
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
	case ShapeBridge:
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
func (f *partitionFault) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	g, err := f.grudge(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	details := map[string]any{"shape": f.shape, "grudge": grudgeJSON(g)}
	var touched, skipped []int32
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(g)) {
		if !e.runsUnpaused(ctx, id) {
			skipped = append(skipped, id)
			continue
		}
		script, err := e.dropScript(id, g[id])
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
	e.markCut(g)
	return touched, details, errors.Join(errs...)
}

// markCut remembers the brokers a grudge cuts off from a controller: their
// metadata goes stale, so state reads avoid them.
func (e *Env) markCut(g Grudge) {
	ctrls := e.ControllerIDs()
	e.mu.Lock()
	defer e.mu.Unlock()
	next := maps.Clone(e.cutFromController)
	if next == nil {
		next = map[int32]bool{}
	}
	for id, peers := range g {
		if !slices.Contains(ctrls, id) && slices.ContainsFunc(peers, func(p int32) bool { return slices.Contains(ctrls, p) }) {
			next[id] = true
		}
	}
	e.cutFromController = next
}

// Heal removes every kchaos rule on every node of the run.
func (f *partitionFault) Heal(ctx context.Context, e *Env) error {
	_, _, err := e.healPartitions(ctx)
	return err
}

func grudgeJSON(g Grudge) map[string][]int32 {
	out := map[string][]int32{}
	for k, v := range g {
		out[histories.PartitionKey(k)] = v
	}
	return out
}

// dropScript is the shell script that makes node id drop all packets to and
// from peers. Rules are inserted at the top of INPUT and OUTPUT so that no
// ACCEPT rule before them can let traffic through.
func (e *Env) dropScript(id int32, peers []int32) (string, error) {
	lines := []string{"set -e"}
	for _, p := range peers {
		n, ok := e.Cluster.Node(p)
		if !ok {
			return "", fmt.Errorf("node %d: peer %d is not in this run", id, p)
		}
		ip, err := netip.ParseAddr(n.IP)
		if err != nil {
			return "", fmt.Errorf("node %d: bad IP %q", p, n.IP)
		}
		tag := "-m comment --comment " + RuleComment + " -j DROP"
		lines = append(lines,
			fmt.Sprintf("iptables -w 5 -I INPUT -s %s %s", ip, tag),
			fmt.Sprintf("iptables -w 5 -I OUTPUT -d %s %s", ip, tag))
	}
	return strings.Join(lines, "\n"), nil
}

var safeArg = regexp.MustCompile(`^[A-Za-z0-9./:_-]+$`)

// kchaosRules picks, from `iptables -S` output, the rules kchaos added and
// returns the arguments that delete each (-A becomes -D).
func kchaosRules(out string) ([][]string, error) { return taggedRules(out, RuleComment) }

// taggedRules picks the rules whose comment is exactly tag: RuleComment
// (partitions and client cuts) and LossComment (netem's loss) are told
// apart, so that each heal removes its own rules only.
func taggedRules(out, tag string) ([][]string, error) {
	var rules [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "-A" {
			continue
		}
		i := slices.Index(f, "--comment")
		if i < 0 || i+1 >= len(f) || strings.Trim(f[i+1], `"`) != tag {
			continue
		}
		f[i+1] = tag
		for _, a := range f {
			if !safeArg.MatchString(a) {
				return nil, fmt.Errorf("unexpected iptables rule %q", line)
			}
		}
		f[0] = "-D"
		rules = append(rules, f)
	}
	return rules, nil
}

// ListRules returns the kchaos rules installed on node id (as -D argument
// lists). Tests use it to check that a heal left none.
func (e *Env) ListRules(ctx context.Context, id int32) ([][]string, error) {
	return e.listTagged(ctx, id, RuleComment)
}

func (e *Env) listTagged(ctx context.Context, id int32, tag string) ([][]string, error) {
	out, err := e.Cluster.Exec(ctx, id, "iptables", "-w", "5", "-S")
	if err != nil {
		return nil, err
	}
	return taggedRules(out, tag)
}

// removeRules deletes node id's kchaos rules and returns how many.
func (e *Env) removeRules(ctx context.Context, id int32) (int, error) {
	return e.removeTagged(ctx, id, RuleComment)
}

// removeTagged deletes node id's rules tagged tag and returns how many.
func (e *Env) removeTagged(ctx context.Context, id int32, tag string) (int, error) {
	rules, err := e.listTagged(ctx, id, tag)
	if err != nil || len(rules) == 0 {
		return 0, err
	}
	lines := []string{"set -e"}
	for _, r := range rules {
		lines = append(lines, "iptables -w 5 "+strings.Join(r, " "))
	}
	if _, err := e.Cluster.Exec(ctx, id, "sh", "-c", strings.Join(lines, "\n")); err != nil {
		return 0, err
	}
	return len(rules), nil
}

// healPartitions removes the kchaos rules of every node of the run. Nodes
// that are down or paused cannot be reached: they are remembered and
// cleaned when the nemesis starts or resumes them (retryPending).
func (e *Env) healPartitions(ctx context.Context) (removed int, pending []int32, err error) {
	e.mu.Lock()
	e.cutFromController, e.clientCut = nil, nil
	e.mu.Unlock()
	pending, err = e.healEachNode(ctx, true, func(id int32) error {
		n, rerr := e.removeRules(ctx, id)
		removed += n
		return rerr
	})
	return removed, pending, err
}

// healEachNode runs remove on every node that runs unpaused. A node it
// cannot reach (paused or stopped) or where remove fails stays pending,
// for retryPending to clear when it runs again. With settle, a node
// remove succeeded on is no longer pending: the partition heal settles;
// netem's leaves a pending mark alone, so that it never clears one a
// partition rule left.
func (e *Env) healEachNode(ctx context.Context, settle bool, remove func(id int32) error) (pending []int32, err error) {
	var errs []error
	for _, id := range e.AllNodes() {
		if !e.runsUnpaused(ctx, id) {
			e.setPending(id, true)
			pending = append(pending, id)
			continue
		}
		if rerr := remove(id); rerr != nil {
			e.setPending(id, true)
			pending = append(pending, id)
			errs = append(errs, rerr)
			continue
		}
		if settle {
			e.setPending(id, false)
		}
	}
	return pending, errors.Join(errs...)
}

// retryPending removes the rules (and netem's qdiscs and loss rules) a heal could not reach
// on node id, now that it runs again. A killed node restarts in a fresh network namespace
// without rules; the retry is then a cheap no-op.
func (e *Env) retryPending(ctx context.Context, id int32) error {
	e.mu.Lock()
	p := e.pending[id]
	e.mu.Unlock()
	if !p {
		return nil
	}
	if _, err := e.removeRules(ctx, id); err != nil {
		return err
	}
	if _, err := e.removeQdiscs(ctx, id); err != nil {
		return err
	}
	if _, err := e.removeLossRules(ctx, id); err != nil {
		return err
	}
	e.setPending(id, false)
	return nil
}

func (e *Env) setPending(id int32, on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		e.pending = map[int32]bool{}
	}
	if on {
		e.pending[id] = true
	} else {
		delete(e.pending, id)
	}
}

// Pending lists the nodes whose kchaos rules a heal could not remove yet.
func (e *Env) Pending() []int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(maps.Keys(e.pending))
}

// runsUnpaused reports whether node id's container runs and is not frozen,
// that is, whether it can run a command.
func (e *Env) runsUnpaused(ctx context.Context, id int32) bool {
	st, err := e.Cluster.State(ctx, id)
	return err == nil && st.Running && !st.Paused
}
