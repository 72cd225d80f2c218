package quorum

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis"
)

// defaultUpgradeWait bounds, per node, a rolling upgrade's wait for the
// upgraded node to be back in service (a step's timeout overrides it).
const defaultUpgradeWait = 2 * time.Minute

// controllerReady reports whether a restarted controller answers on its
// listener; a variable so that tests of the fake cluster can replace it.
var controllerReady = func(ctx context.Context, n cluster.Node) error {
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", n.Addr())
	if err != nil {
		return err
	}
	return conn.Close()
}

// upgradeKind restarts nodes on another release in place.
var upgradeKind = nemesis.Kind{Name: histories.FUpgrade, Needs: cluster.NewCaps(cluster.CapUpgrade),
	New:         func() nemesis.Params { return &UpgradeParams{} },
	LeavesState: "runs nodes on another Kafka release",
	// Nothing downgrades: an upgrade is no fault a heal undoes.
	Heal: nemesis.Instant, Color: "#2e8b57", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn,
	Proof: "waits for each node to be back (unfenced, in the ISR) and records the levels read after"}

// UpgradeParams are a rolling upgrade's.
type UpgradeParams struct {
	// Version is the Kafka release the nodes move to ("4.4.0", "4.4.x",
	// "latest").
	Version string `yaml:"version,omitempty"`
	// Finalize then raises metadata.version.
	Finalize bool `yaml:"finalize,omitempty"`
	// ReadyWithin bounds, per node, the wait for it to be back in service
	// (default DefaultUpgradeWait).
	ReadyWithin nemesis.Duration `yaml:"timeout,omitempty"`
}

func (up *UpgradeParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if up.Version == "" {
		add(p+".version", "upgrade needs a version (e.g. 4.4.0, 4.4.x or latest)")
	} else if _, err := cluster.ResolveVersion(up.Version); err != nil {
		add(p+".version", "%v", err)
	}
	if st.Target != nil {
		nemesis.ValidateTarget(p+".target", st.Target, false, false, add)
	}
}

// CheckAgainst refuses an upgrade to a release not newer than the one the
// cluster starts on: it would restart the nodes on the same release (or
// downgrade them, which Kafka does not support), and a story that means
// to show an upgrade would show none.
func (up *UpgradeParams) CheckAgainst(p string, _ *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	to, err := cluster.ResolveVersion(up.Version)
	if err != nil || v.Kafka == "" {
		return // Validate and the cluster's validation name these
	}
	from, ferr := cluster.ParseVersion(v.Kafka)
	tv, terr := cluster.ParseVersion(to)
	if ferr == nil && terr == nil && !from.Less(tv) {
		add(p+".version", "%s (%s) is not newer than the cluster's release %s (cluster.kafka): nothing to upgrade", up.Version, to, v.Kafka)
	}
}

// UpgradeVersion is the release the step names, as written
// (nemesis.Upgrader: what kchaos versions reads of it without naming this
// room).
func (up *UpgradeParams) UpgradeVersion() string { return up.Version }

var _ nemesis.Upgrader = (*UpgradeParams)(nil)

func (up *UpgradeParams) Build(st nemesis.Step) nemesis.Fault {
	return &rollingUpgrade{target: st.Target, params: *up}
}

// Label names the step by its release ("upgrade to 4.4.0"): the runner's
// labeler, whose method is exported so that a room's parameters can
// name their steps too.
func (up *UpgradeParams) Label(string) string { return "upgrade to " + up.Version }

// rollingUpgrade is an upgrade step (rollUpgrade).
type rollingUpgrade struct {
	target *nemesis.Target
	params UpgradeParams
}

func (f *rollingUpgrade) Name() string { return histories.FUpgrade }

func (f *rollingUpgrade) Play(ctx context.Context, e *nemesis.Env) error {
	return rollUpgrade(ctx, e, f.target, f.params)
}

// Inject refuses: a rolling upgrade is one op per node, not one op.
func (f *rollingUpgrade) Inject(context.Context, *nemesis.Env) ([]int32, map[string]any, error) {
	return nil, nil, errors.New("a rolling upgrade records one op per node: play it (Sequence)")
}

func (f *rollingUpgrade) Heal(context.Context, *nemesis.Env) error { return nil }

// rollUpgrade plays an upgrade step: each target node, controllers
// first and then brokers in id order, one at a time, is restarted on the
// step's release with its data (cluster.Upgrader), and the next waits
// until it is back: a broker registered, unfenced and in the ISR of every
// partition of the workload topic it replicates; a controller answering
// with the brokers live. Each node is one upgrade op in the history. With
// finalize, metadata.version is then raised to the highest level every
// node supports, recorded as a set-feature op.
func rollUpgrade(ctx context.Context, e *nemesis.Env, target *nemesis.Target, st UpgradeParams) error {
	version, err := cluster.ResolveVersion(st.Version)
	if err != nil {
		return err
	}
	ids, err := upgradeOrder(ctx, e, target)
	if err != nil {
		return err
	}
	wait := st.ReadyWithin.Std()
	if wait <= 0 {
		wait = defaultUpgradeWait
	}
	for _, id := range ids {
		if err := e.Inject(ctx, &upgradeNode{id: id, version: version, wait: wait}); err != nil {
			return err
		}
	}
	if st.Finalize {
		return e.Inject(ctx, &setFeature{finalize: true})
	}
	return nil
}

// upgradeOrder is the target's nodes (every node without one),
// controllers first, each group in id order.
func upgradeOrder(ctx context.Context, e *nemesis.Env, t *nemesis.Target) ([]int32, error) {
	ids := e.AllNodes()
	if t != nil {
		var err error
		if ids, err = e.Resolve(ctx, t); err != nil {
			return nil, err
		}
	}
	ctrls := e.ControllerIDs()
	slices.SortFunc(ids, func(a, b int32) int {
		ca, cb := slices.Contains(ctrls, a), slices.Contains(ctrls, b)
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return int(a - b)
	})
	return slices.Compact(ids), nil
}

// upgradeNode restarts one node on another release: an instant fault
// (nothing heals it; the node keeps running the new release).
type upgradeNode struct {
	id      int32
	version string
	wait    time.Duration
}

func (f *upgradeNode) Name() string { return histories.FUpgrade }

func (f *upgradeNode) Spec() map[string]any {
	return map[string]any{"node": f.id, "to": f.version}
}

func (f *upgradeNode) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	up, ok := e.Cluster.(cluster.Upgrader)
	if !ok {
		return nil, nil, fmt.Errorf("backend cannot upgrade: %T has no Upgrade (cluster.Upgrader)", e.Cluster)
	}
	n, ok := e.Cluster.Node(f.id)
	if !ok {
		return nil, nil, fmt.Errorf("node %d does not exist", f.id)
	}
	from, _ := up.NodeVersion(f.id)
	d := map[string]any{"node": f.id, "role": string(n.Role), "from": from, "to": f.version}
	begin := time.Now()
	if err := up.Upgrade(ctx, f.id, f.version); err != nil {
		return []int32{f.id}, d, err
	}
	if err := e.RetryHeals(ctx, f.id); err != nil {
		return []int32{f.id}, d, err
	}
	var err error
	if n.Role == cluster.RoleController {
		err = waitController(ctx, e, n, f.wait)
	} else {
		err = waitInService(ctx, e, f.id, f.wait)
	}
	d["ready_s"] = time.Since(begin).Round(100 * time.Millisecond).Seconds()
	if fa, ok := e.Admin.(FeatureAdmin); ok && err == nil {
		if ff, ferr := fa.FinalizedFeatures(ctx); ferr == nil {
			d["features"] = ff
		}
	}
	return []int32{f.id}, d, err
}

func (f *upgradeNode) Heal(context.Context, *nemesis.Env) error { return nil }

// waitController waits until a restarted controller's listener answers
// and every broker is live again (they register with the quorum).
func waitController(ctx context.Context, e *nemesis.Env, n cluster.Node, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		err := controllerReady(ctx, n)
		if err == nil {
			break
		}
		if ctxsleep.Sleep(ctx, nemesis.PollInterval) != nil {
			return fmt.Errorf("controller %d not answering within %s: %v", n.ID, limit, err)
		}
	}
	return e.WaitLive(ctx, e.BrokerIDs(), limit)
}

// waitInService waits until broker id is live and in the ISR of every
// partition of the workload topic that it replicates.
func waitInService(ctx context.Context, e *nemesis.Env, id int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := e.WaitLive(ctx, []int32{id}, limit); err != nil {
		return err
	}
	if e.Topic == "" {
		return nil
	}
	if last, ok := e.UntilTopic(ctx, func(parts []admin.PartitionState) (string, bool) {
		var out []int32
		for _, p := range parts {
			if slices.Contains(p.Replicas, id) && !slices.Contains(p.ISR, id) {
				out = append(out, p.Partition)
			}
		}
		if len(out) == 0 {
			return "", true
		}
		return fmt.Sprintf("not in the ISR of partitions %v", out), false
	}); !ok {
		return fmt.Errorf("broker %d not back in service within %s: %s", id, limit, last)
	}
	return nil
}
