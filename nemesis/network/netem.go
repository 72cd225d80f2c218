package network

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kchaos/kchaos/nemesis"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// ShapeClients is netem's own shape: the links between the target brokers
// and the client side (the kchaos host: the workload, the admin client,
// the observer). The other shapes are the partition's, whose cut links
// netem degrades instead.
const ShapeClients = "clients"

var rateRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)(bit|kbit|mbit|gbit)$`)

// parseLinkRate reads a tc rate in bits per second ("1mbit", or tc's own
// "1Mbit" when it prints one back).
func parseLinkRate(s string) (float64, error) {
	m := rateRE.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return 0, fmt.Errorf("rate %q: want a number and bit, kbit, mbit or gbit (bits per second), e.g. 1mbit", s)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	mult := map[string]float64{"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m[2]]
	if v*mult < 8000 {
		return 0, fmt.Errorf("rate %q: below 8kbit a link cannot carry one TCP segment a second", s)
	}
	return v * mult, nil
}

// linkSpec is a netem spec (the seam's type, the schedule format's) as
// this room applies it to a link: tc's words and what each part needs.
type linkSpec nemesis.NetemSpec

// netemQdisc is whether the spec needs a netem qdisc (delay, duplicate or
// reorder; loss is an iptables rule, netem_loss.go).
func (s *linkSpec) netemQdisc() bool {
	return s.Delay > 0 || s.Duplicate > 0 || s.Reorder > 0
}

// needsTC is whether the spec needs the tc tree (a rate or a netem qdisc).
func (s *linkSpec) needsTC() bool { return s.netemQdisc() || s.Rate != "" }

// empty is a spec that does nothing.
func (s *linkSpec) empty() bool { return !s.needsTC() && s.Loss == 0 }

// netemArgs is the netem qdisc's parameters, in tc's words.
func (s *linkSpec) netemArgs() []string {
	var a []string
	if s.Delay > 0 {
		a = append(a, "delay", fmt.Sprintf("%dus", s.Delay.Std().Microseconds()))
		if s.Jitter > 0 {
			a = append(a, fmt.Sprintf("%dus", s.Jitter.Std().Microseconds()))
		}
	}
	for _, p := range []struct {
		k string
		v nemesis.Percent
	}{{"duplicate", s.Duplicate}, {"reorder", s.Reorder}} {
		if p.v > 0 {
			a = append(a, p.k, p.v.String())
		}
	}
	return a
}

func validateNetem(p string, s *nemesis.NetemSpec, add nemesis.AddFunc) {
	if s == nil {
		add(p+".netem", "fault netem needs netem: {delay, jitter, loss, duplicate, reorder, rate}")
		return
	}
	if (*linkSpec)(s).empty() {
		add(p+".netem", "empty: set delay, loss, duplicate, reorder or rate")
	}
	if s.Delay < 0 || s.Delay.Std() > 10*time.Second {
		add(p+".netem.delay", "want 0 to 10s")
	}
	if s.Jitter != 0 && (s.Delay <= 0 || s.Jitter < 0 || s.Jitter >= s.Delay) {
		add(p+".netem.jitter", "needs a delay and must be below it (netem clamps a negative delay to 0)")
	}
	if s.Reorder > 0 && s.Delay <= 0 {
		add(p+".netem.reorder", "needs a delay: netem reorders by sending some packets without it")
	}
	if s.Rate != "" {
		if _, err := parseLinkRate(s.Rate); err != nil {
			add(p+".netem.rate", "%v", err)
		}
	}
}

// Names tc gives what netem adds: an htb root (handle ca05:) whose class
// ca05:1 carries the chosen links (u32 filters on the peers' addresses),
// with the netem qdisc ca06: under it. Unfiltered traffic bypasses the
// class (htb default 0), so nothing else is touched; heal deletes the
// root by its handle, never a qdisc kchaos did not add.
const (
	netemRoot  = "ca05:"
	netemClass = "ca05:1"
	netemChild = "ca06:"
	// unlimited is the class rate when only netem parameters are set.
	unlimited = "10gbit"
)

// netemKind degrades links with tc qdiscs (and iptables for loss) in the
// nodes' own network namespaces.
var netemKind = nemesis.Kind{Name: histories.FNetem, Needs: cluster.NewCaps(cluster.CapNetem, cluster.CapPartition),
	New: func() nemesis.Params { return &NetemParams{} }, Heal: netemHeal, Color: "#c9a227",
	LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Proof: nemesis.Proved, Bootstrap: true,
	Draw: &nemesis.Draw{Rank: 7, Shape: nemesis.ShapeIsolate, Shapes: append(drawnShapes(), ShapeClients), Links: true,
		Params: func(rs nemesis.RandomSchedule, shape string) nemesis.Params {
			return &NetemParams{Shape: shape, Netem: randomNetem(rs)}
		},
		Validate: validateRandomNetem}}

// netemHeal deletes every kchaos qdisc and loss rule (tagged
// kchaos-netem, which heal partition leaves alone).
var netemHeal = &nemesis.HealKind{Name: histories.FNetem, Rank: 4, Heal: func(ctx context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
	n, rules, pending, err := healNetem(ctx, e)
	d["qdiscs_removed"] = n
	if rules > 0 {
		d["loss_rules_removed"] = rules
	}
	if len(pending) > 0 {
		d["netem_deferred"] = pending
	}
	return nil, err
}}

// NetemParams are a netem's: the links (a partition shape's cut links, or
// clients) and what it does to each.
type NetemParams struct {
	// Shape picks the links as a partition's shape would cut them (default
	// isolate), or ShapeClients.
	Shape string `yaml:"shape,omitempty"`
	// Groups are shape groups' node groups (PartitionParams.Groups).
	Groups [][]int32 `yaml:"groups,omitempty"`
	// Netem is what the fault does to each link.
	Netem *nemesis.NetemSpec `yaml:"netem,omitempty"`
}

func (np *NetemParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	validateNetem(p, np.Netem, add)
	validateLinks(p, st, np.Shape, np.Groups, add)
}

// needs: the clients links are the client side's.
func (np *NetemParams) Needs() cluster.Caps {
	if np.Shape == ShapeClients {
		return cluster.NewCaps(cluster.CapClientCut)
	}
	return 0
}

// Label names a step by its shape ("netem clients"), as a partition's.
func (np *NetemParams) Label(fault string) string { return shapeLabel(fault, np.Shape) }

func (np *NetemParams) Build(st nemesis.Step) nemesis.Fault {
	var spec linkSpec
	if np.Netem != nil {
		spec = linkSpec(*np.Netem)
	}
	return &netemFault{shape: orIsolate(np.Shape), target: st.Target, groups: np.Groups, spec: spec}
}

// netemFault degrades links chosen like a partition's cut links, or the
// targets' links to the client side.
type netemFault struct {
	shape  string
	target *nemesis.Target
	groups [][]int32
	spec   linkSpec
	// What Inject did, for Heal and Prove: each node's shaped peers by
	// device, its loss rules, and the delay measured on the first link
	// before.
	links    map[int32]map[string][]netip.Addr
	loss     map[int32][]lossRule
	touched  []int32
	skipped  []int32
	probe    *netemProbe
	baseline *rttSample
}

func (f *netemFault) Name() string { return histories.FNetem }

func (f *netemFault) Spec() map[string]any {
	m := map[string]any{"shape": f.shape, "netem": f.spec}
	if f.shape == nemesis.ShapeGroups {
		m["groups"] = f.groups
	} else if f.target != nil {
		m["target"] = f.target
	}
	return m
}

// peers resolves which addresses each node's egress shapes.
func (f *netemFault) peers(ctx context.Context, e *nemesis.Env) (map[int32][]netip.Addr, error) {
	out := map[int32][]netip.Addr{}
	if f.shape == ShapeClients {
		addrs, err := clientAddrs(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("cannot shape client links: %w", err)
		}
		ids, err := brokerTargets(ctx, e, f.target, "netem clients")
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out[id] = slices.Clone(addrs)
		}
		return out, nil
	}
	g, err := (&partitionFault{shape: f.shape, target: f.target, groups: f.groups}).grudge(ctx, e)
	if err != nil {
		return nil, err
	}
	for id, ps := range g {
		for _, p := range ps {
			n, _ := e.Cluster.Node(p)
			ip, err := netip.ParseAddr(n.IP)
			if err != nil {
				return nil, fmt.Errorf("node %d: bad IP %q", p, n.IP)
			}
			out[id] = append(out[id], ip)
		}
	}
	return out, nil
}

// Inject installs the qdiscs on every node whose egress it shapes. A node
// that is down or paused is skipped, as a partition skips it (its peers
// still shape their side).
func (f *netemFault) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	if !netemCapable(e) {
		return nil, nil, errors.New("the backend's nodes do not run in network namespaces of the run's own: " +
			"a qdisc left by a crashed kchaos would stay on the host (the SSH backend's crash record knows only iptables rules), so netem is refused")
	}
	if f.spec.empty() {
		return nil, nil, errors.New("nothing to do: set delay, loss, duplicate, reorder or rate")
	}
	peers, err := f.peers(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	f.links = map[int32]map[string][]netip.Addr{}
	f.loss = map[int32][]lossRule{}
	if f.spec.Delay > 0 {
		f.baseline = f.measure(ctx, e, peers)
	}
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(peers)) {
		if !e.RunsUnpaused(ctx, id) {
			f.skipped = append(f.skipped, id)
			continue
		}
		byDev, err := f.install(ctx, e, id, peers[id])
		if err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", id, err))
			continue
		}
		f.links[id] = byDev
		f.touched = append(f.touched, id)
	}
	details := map[string]any{"shape": f.shape, "links": f.linksJSON()}
	if f.spec.Loss > 0 {
		details["loss_rules"] = f.lossJSON()
	}
	if len(f.skipped) > 0 {
		details["skipped"] = f.skipped
	}
	if f.baseline != nil {
		details["baseline_rtt_us"] = f.baseline.median().Microseconds()
	}
	return f.touched, details, errors.Join(errs...)
}

func (f *netemFault) linksJSON() map[string][]string {
	out := map[string][]string{}
	for id, byDev := range f.links {
		for dev, ips := range byDev {
			for _, ip := range ips {
				out[fmt.Sprint(id)] = append(out[fmt.Sprint(id)], dev+":"+ip.String())
			}
		}
	}
	return out
}

// install adds the root, class, netem and filters on node id (when the
// spec needs them), then the loss rules (when it has a loss).
func (f *netemFault) install(ctx context.Context, e *nemesis.Env, id int32, peers []netip.Addr) (map[string][]netip.Addr, error) {
	byDev, err := routeDevs(ctx, e, id, peers)
	if err != nil {
		return nil, err
	}
	if f.spec.needsTC() {
		if err := f.installTC(ctx, e, id, byDev); err != nil {
			return nil, err
		}
	}
	if f.spec.Loss > 0 {
		if err := f.installLoss(ctx, e, id, peers); err != nil { // netem_loss.go
			_, _ = removeQdiscs(ctx, e, id)
			return nil, err
		}
	}
	return byDev, nil
}

// installTC adds the htb root, its class, the netem qdisc (delay,
// duplicate, reorder) and a filter per peer on each device.
func (f *netemFault) installTC(ctx context.Context, e *nemesis.Env, id int32, byDev map[string][]netip.Addr) error {
	out, err := e.Cluster.Exec(ctx, id, "tc", "qdisc", "show")
	if err != nil {
		return err
	}
	roots := rootQdiscs(out)
	rate := f.spec.Rate
	if rate == "" {
		rate = unlimited
	}
	lines := []string{"set -e"}
	for _, dev := range slices.Sorted(maps.Keys(byDev)) {
		switch h := roots[dev]; {
		case h == netemRoot:
			return fmt.Errorf("dev %s already has a kchaos netem: heal netem first", dev)
		case h != "" && h != "0:":
			return fmt.Errorf("dev %s has a root qdisc of its own (handle %s): netem would replace it", dev, h)
		}
		lines = append(lines,
			fmt.Sprintf("tc qdisc add dev %s root handle %s htb", dev, netemRoot),
			fmt.Sprintf("tc class add dev %s parent %s classid %s htb rate %s quantum 1514", dev, netemRoot, netemClass, rate))
		if f.spec.netemQdisc() {
			lines = append(lines, fmt.Sprintf("tc qdisc add dev %s parent %s handle %s netem %s",
				dev, netemClass, netemChild, strings.Join(f.spec.netemArgs(), " ")))
		}
		for _, ip := range byDev[dev] {
			lines = append(lines, fmt.Sprintf("tc filter add dev %s parent %s protocol ip prio 1 u32 match ip dst %s/32 flowid %s",
				dev, netemRoot, ip, netemClass))
		}
	}
	if out, err := e.Cluster.Exec(ctx, id, "sh", "-c", strings.Join(lines, "\n")); err != nil {
		// Take back what the script added before it failed.
		_, _ = removeQdiscs(ctx, e, id)
		if strings.Contains(out+err.Error(), "qdisc kind is unknown") && f.spec.netemQdisc() {
			return fmt.Errorf("the kernel has no netem qdisc (CONFIG_NET_SCH_NETEM; tc: Specified qdisc kind is unknown): "+
				"delay, jitter, duplicate and reorder cannot be applied here (a rate or a loss can): %w", err)
		}
		return err
	}
	return nil
}

// routeDevs asks the node's routing table which device reaches each peer.
func routeDevs(ctx context.Context, e *nemesis.Env, id int32, peers []netip.Addr) (map[string][]netip.Addr, error) {
	var script []string
	for _, p := range peers {
		script = append(script, "ip -o route get "+p.String())
	}
	out, err := e.Cluster.Exec(ctx, id, "sh", "-c", strings.Join(script, "\n"))
	if err != nil {
		return nil, err
	}
	byDev := map[string][]netip.Addr{}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(peers) {
		return nil, fmt.Errorf("ip route get: %d lines for %d peers: %q", len(lines), len(peers), out)
	}
	for i, l := range lines {
		fs := strings.Fields(l)
		j := slices.Index(fs, "dev")
		if j < 0 || j+1 >= len(fs) || !safeArg.MatchString(fs[j+1]) {
			return nil, fmt.Errorf("ip route get %s: no device in %q", peers[i], l)
		}
		byDev[fs[j+1]] = append(byDev[fs[j+1]], peers[i])
	}
	return byDev, nil
}

// Heal removes the qdiscs and loss rules from the nodes Inject touched.
func (f *netemFault) Heal(ctx context.Context, e *nemesis.Env) error {
	var errs []error
	for _, id := range f.touched {
		_, err := removeQdiscs(ctx, e, id)
		_, lerr := removeLossRules(ctx, e, id)
		errs = append(errs, err, lerr)
	}
	return errors.Join(errs...)
}

func (np *NetemParams) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	v.CheckGroups(p, np.Groups, add)
	v.CheckQuorumShape(p, st, np.Shape, add)
}

// defaultRandomNetem is what a drawn netem does to its links unless the
// schedule says otherwise (nemesis.random.netem): a 10% loss, because it
// works on every kernel (iptables, netem_loss.go), where a delay needs
// sch_netem, and because it is a degradation Kafka must ride out (TCP
// retransmits; replication slows, nothing should be lost), where a rate
// limit mostly measures throughput.
var defaultRandomNetem = nemesis.NetemSpec{Loss: 10}

// randomNetem is the spec of a drawn netem step (a copy per step).
func randomNetem(rs nemesis.RandomSchedule) *nemesis.NetemSpec {
	spec := defaultRandomNetem
	if rs.Netem != nil {
		spec = *rs.Netem
	}
	return &spec
}

// validateRandomNetem is netem's Draw.Validate: a random schedule's netem
// spec (nemesis.random.netem) is valid, and the mix draws a netem to
// take it.
func validateRandomNetem(rs *nemesis.RandomSchedule, add nemesis.AddFunc) {
	if rs.Netem == nil {
		return
	}
	validateNetem("nemesis.random", rs.Netem, add)
	draws := func(f string) bool {
		return f == histories.FNetem || strings.HasPrefix(f, histories.FNetem+"-") && nemesis.IsRandomFault(f)
	}
	if !slices.ContainsFunc(rs.Faults, draws) {
		add("nemesis.random.netem", "the mix draws no netem (name netem, netem-<shape> or netem-clients in faults)")
	}
}
