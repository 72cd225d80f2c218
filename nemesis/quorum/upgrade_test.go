package quorum

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// upgradingCluster is the fake cluster with cluster.Upgrader: an upgrade
// records its call and the node's new release; with stuck, the node stays
// down afterwards (it never comes back in service).
type upgradingCluster struct {
	*fakeCluster
	versions map[int32]string
	stuck    int32
}

func (u *upgradingCluster) Capabilities() cluster.Caps {
	return u.fakeCluster.Capabilities() | cluster.NewCaps(cluster.CapUpgrade)
}

func (u *upgradingCluster) Upgrade(_ context.Context, id int32, v string) error {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	u.Calls = append(u.Calls, fmt.Sprintf("upgrade %d %s", id, v))
	u.versions[id] = v
	if id == u.stuck {
		u.States[id] = cluster.NodeState{}
	}
	return nil
}

func (u *upgradingCluster) NodeVersion(id int32) (string, bool) {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	v, ok := u.versions[id]
	return v, ok
}

// featureFake is the fake admin with finalized features.
type featureFake struct {
	*fakeAdmin
	finalized, supported map[string]int16
	sets                 []string
}

func (f *featureFake) FinalizedFeatures(context.Context) (map[string]int16, error) {
	out := map[string]int16{}
	for k, v := range f.finalized {
		out[k] = v
	}
	return out, nil
}

func (f *featureFake) SupportedFeatures(context.Context) (map[string]int16, error) {
	return f.supported, nil
}

func (f *featureFake) SetFeature(_ context.Context, name string, level int16, downgrade bool) error {
	if f.supported[name] < level {
		return &admin.FeatureUpdateError{Feature: name, Level: level, Err: kerr.InvalidUpdateVersion,
			Message: fmt.Sprintf("Invalid update version %d for feature %s. Controller 1002 only supports versions 1-%d", level, name, f.supported[name])}
	}
	if name == "flaky.version" {
		return &admin.FeatureUpdateError{Feature: name, Level: level, Err: kerr.RequestTimedOut}
	}
	f.sets = append(f.sets, fmt.Sprintf("%s=%d downgrade=%v", name, level, downgrade))
	f.finalized[name] = level
	return nil
}

func TestUpgradeAndSetFeature(t *testing.T) {
	controllerReady = func(context.Context, cluster.Node) error { return nil }
	for _, tc := range []struct {
		name      string
		steps     string
		noUpgrade bool  // a backend without cluster.Upgrader
		stuck     int32 // a node that does not come back
		calls     string
		sets      string
		summary   string
		details   map[string]string // fmt of an op's details, by "f#n" (n-th completion of f)
		err       string
	}{
		{name: "every node, controllers first, then finalize",
			steps:   "- {fault: upgrade, version: latest, finalize: true}",
			calls:   "upgrade 1000 4.4.0,upgrade 0 4.4.0,upgrade 1 4.4.0,upgrade 2 4.4.0",
			sets:    "metadata.version=27",
			summary: "upgrade:ok[1000] upgrade:ok[0] upgrade:ok[1] upgrade:ok[2] set-feature:ok",
			details: map[string]string{
				"upgrade#0":     "from:3.9.2 node:1000 role:controller to:4.4.0",
				"set-feature#0": "features_after:map[metadata.version:27] features_before:map[metadata.version:21]"}},
		{name: "a target, in controller-first order, no finalize",
			steps:   "- {fault: upgrade, version: 4.2.x, target: {role: nodes, nodes: [2, 1000]}}",
			calls:   "upgrade 1000 4.2.2,upgrade 2 4.2.2",
			summary: "upgrade:ok[1000] upgrade:ok[2]"},
		{name: "set ELR live",
			steps:   "- {fault: set-feature, feature: {eligible.leader.replicas.version: 1}}",
			sets:    "eligible.leader.replicas.version=1",
			summary: "set-feature:ok",
			details: map[string]string{"set-feature#0": "features_after:map[eligible.leader.replicas.version:1 metadata.version:21] features_before:map[metadata.version:21]"}},
		{name: "a level no node supports is refused",
			steps:   "- {fault: set-feature, feature: {transaction.version: 9}}",
			summary: "set-feature:info", err: "INVALID_UPDATE_VERSION"},
		{name: "finalize raises metadata.version to the supported level",
			steps:   "- {fault: set-feature, finalize: true}",
			sets:    "metadata.version=27",
			summary: "set-feature:ok",
			details: map[string]string{"set-feature#0": "set:map[metadata.version:27]"}},
		{name: "a refusal recorded: the op fails with Kafka's answer and the story goes on",
			steps: "- {fault: set-feature, feature: {transaction.version: 9}, refused: record}\n" +
				"- {fault: set-feature, feature: {eligible.leader.replicas.version: 1}}",
			sets:    "eligible.leader.replicas.version=1",
			summary: "set-feature:fail set-feature:ok",
			details: map[string]string{"set-feature#0": "refused:map[code:INVALID_UPDATE_VERSION feature:transaction.version level:9 " +
				"message:Invalid update version 9 for feature transaction.version. Controller 1002 only supports versions 1-2]"}},
		{name: "a refusal not recorded fails the step, its answer in the details",
			steps:   "- {fault: set-feature, feature: {transaction.version: 9}}\n- {fault: set-feature, feature: {eligible.leader.replicas.version: 1}}",
			summary: "set-feature:info", err: "Controller 1002 only supports versions 1-2",
			details: map[string]string{"set-feature#0": "refused:map[code:INVALID_UPDATE_VERSION feature:transaction.version level:9 " +
				"message:Invalid update version 9 for feature transaction.version. Controller 1002 only supports versions 1-2]"}},
		{name: "an error that is no refusal fails the step even when refusals are recorded",
			steps:   "- {fault: set-feature, feature: {flaky.version: 1}, refused: record}\n- {fault: set-feature, feature: {eligible.leader.replicas.version: 1}}",
			summary: "set-feature:info", err: "REQUEST_TIMED_OUT"},
		{name: "backend cannot upgrade", noUpgrade: true,
			steps:   "- {fault: upgrade, version: 4.4.0}",
			summary: "upgrade:info", err: "backend cannot upgrade"},
		{name: "a broker that does not come back stops the upgrade", stuck: 1,
			steps:   "- {fault: upgrade, version: 4.4.0, finalize: true, timeout: 300ms}",
			calls:   "upgrade 1000 4.4.0,upgrade 0 4.4.0,upgrade 1 4.4.0",
			summary: "upgrade:ok[1000] upgrade:ok[0] upgrade:info[1]", err: "brokers [1] not live within 300ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := nemesis.ParseSchedule([]byte("steps:\n" + indentLines(tc.steps)))
			if err != nil {
				t.Fatal(err)
			}
			var ff *featureFake
			var uc *upgradingCluster
			var runErr error
			evs := recorded(t, func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin) {
				ff = &featureFake{fakeAdmin: a, finalized: map[string]int16{admin.FeatureMetadataVersion: 21},
					supported: map[string]int16{admin.FeatureMetadataVersion: 27, admin.FeatureELR: 1, admin.FeatureTransaction: 2, "flaky.version": 1}}
				env.Admin = ff
				if !tc.noUpgrade {
					uc = &upgradingCluster{fakeCluster: c, stuck: -1, versions: map[int32]string{}}
					if tc.stuck != 0 {
						uc.stuck = tc.stuck
					}
					for _, n := range cluster.AllNodes(c) {
						uc.versions[n.ID] = "3.9.2"
					}
					env.Cluster = uc
				}
				for _, st := range s.Steps {
					if runErr = playStep(context.Background(), env, st); runErr != nil {
						break
					}
				}
			})
			if got := summary(evs); got != tc.summary {
				t.Errorf("ops %q, want %q", got, tc.summary)
			}
			if tc.err == "" && runErr != nil || tc.err != "" && (runErr == nil || !strings.Contains(runErr.Error(), tc.err)) {
				t.Errorf("error %v, want %q", runErr, tc.err)
			}
			if uc != nil {
				var calls []string
				for _, c := range uc.Calls {
					if strings.HasPrefix(c, "upgrade") {
						calls = append(calls, c)
					}
				}
				if got := strings.Join(calls, ","); got != tc.calls {
					t.Errorf("calls %q, want %q", got, tc.calls)
				}
			}
			var sets []string
			for _, s := range ff.sets {
				sets = append(sets, strings.TrimSuffix(s, " downgrade=false"))
			}
			if got := strings.Join(sets, ","); got != tc.sets {
				t.Errorf("feature updates %q, want %q", got, tc.sets)
			}
			seen := map[string]int{}
			for _, e := range evs {
				if e.Type == histories.Invoke {
					continue
				}
				key := fmt.Sprintf("%s#%d", e.F, seen[e.F])
				seen[e.F]++
				want, ok := tc.details[key]
				if !ok {
					continue
				}
				var v histories.NemesisValue
				_ = e.Decode(&v)
				if got := detailString(v.Details, want); got != want {
					t.Errorf("%s details %q, want %q", key, got, want)
				}
			}
		})
	}
}

// detailString renders the details' keys that want names, sorted, as
// "k:v k:v" (numbers as the history's JSON reads them back).
func detailString(d map[string]any, want string) string {
	var out []string
	for _, kv := range strings.Fields(want) {
		k, _, _ := strings.Cut(kv, ":")
		if _, ok := d[k]; !ok {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%v", k, d[k]))
	}
	return strings.Join(out, " ")
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ") + "\n"
}

func TestUpgradeValidation(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"- {fault: upgrade}", "nemesis.steps[0].version: upgrade needs a version"},
		{"- {fault: upgrade, version: 5.0.x}", "nemesis.steps[0].version: \"5.0.x\": kchaos knows no 5.0 release"},
		{"- {fault: upgrade, version: 5.x}", "nemesis.steps[0].version: \"5.x\" is not a Kafka version (want X.Y.Z, X.Y.x, latest or local:NAME)"},
		{"- {fault: upgrade, version: banana}", "nemesis.steps[0].version: \"banana\" is not a Kafka version"},
		{"- {fault: upgrade, version: 4.4.1}", ""},
		{"- {fault: kill, version: 4.4.0, target: {role: leader}}", "nemesis.steps[0].version: only for fault upgrade"},
		{"- {fault: restart, finalize: true, target: {role: leader}}", "nemesis.steps[0].finalize: only for faults upgrade and set-feature"},
		{"- {fault: set-feature, finalize: true, feature: {metadata.version: 27}}", "nemesis.steps[0].finalize: set-feature takes feature or finalize, not both"},
		{"- {fault: set-feature}", "nemesis.steps[0].feature: set-feature needs at least one feature"},
		{"- {fault: set-feature, finalize: true, refused: ignore}", `nemesis.steps[0].refused: "ignore": want fail`},
		{"- {fault: kill, refused: record, target: {role: leader}}", "nemesis.steps[0].refused: only for fault set-feature"},
		{"- {fault: set-feature}", "nemesis.steps[0].feature: set-feature needs at least one feature"},
		{"- {fault: set-feature, feature: {transaction.version: -1}}", "nemesis.steps[0].feature.transaction.version: level -1: must not be negative"},
		{"- {fault: set-config, config: {a: b}, feature: {x: 1}}", "nemesis.steps[0].feature: only for fault set-feature"},
		{"- {fault: upgrade, version: latest, finalize: true, timeout: 3m}", ""},
		{"- {fault: set-feature, feature: {eligible.leader.replicas.version: 1}}", ""},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			_, err := nemesis.ParseSchedule([]byte("steps:\n" + indentLines(tc.yaml)))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
