//go:build integration

package harness_test

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// The upgrade scenarios u1 and u2 (a cluster created on 3.9, upgraded in
// place to the newest release under load, finalised, then Last Replica
// Standing; u2 raises eligible.leader.replicas.version live first). The
// two take about 170 s together (measured), so they run in make test as
// well as in make test-scenarios.

// nemesisOps returns the completions of nemesis ops named f.
func (r scenarioRun) nemesisOps(t *testing.T, f string) []histories.NemesisValue {
	t.Helper()
	var out []histories.NemesisValue
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == f && e.Type != histories.Invoke {
			if e.Type != histories.OK {
				t.Errorf("%s op ended %s: %s", f, e.Type, e.Error)
			}
			var v histories.NemesisValue
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}

// level reads a feature level from a set-feature op's details (JSON
// numbers); an absent feature is level 0, as Kafka reports it.
func level(v histories.NemesisValue, key, feature string) float64 {
	m, _ := v.Details[key].(map[string]any)
	n, _ := m[feature].(float64)
	return n
}

// checkUpgrade asserts what both scenarios share: every node upgraded
// from 3.9.2 to the newest release, controllers first, one op each;
// metadata.version finalised upward; and no acked record lost that the
// rolling upgrade itself could have lost: every send acked before broker
// 0 (the story's leader) was stopped for its upgrade is in the final read
// (later ones may be unflushed on broker 0 when the story cuts its power,
// which is the story's loss, not the upgrade's).
func checkUpgrade(t *testing.T, r scenarioRun) (finalize histories.NemesisValue) {
	t.Helper()
	latest := cluster.Releases[len(cluster.Releases)-1]
	ups := r.nemesisOps(t, histories.FUpgrade)
	var order []int32
	for _, u := range ups {
		order = append(order, u.Nodes...)
		if u.Details["from"] != "3.9.2" || u.Details["to"] != latest {
			t.Errorf("upgrade of %v: from %v to %v, want 3.9.2 to %s", u.Nodes, u.Details["from"], u.Details["to"], latest)
		}
	}
	if !slices.Equal(order, []int32{1000, 0, 1, 2}) {
		t.Fatalf("upgraded nodes %v, want [1000 0 1 2] one op each", order)
	}
	sets := r.nemesisOps(t, histories.FSetFeature)
	if len(sets) == 0 {
		t.Fatal("no set-feature op: metadata.version was not finalised")
	}
	finalize = sets[0]
	mvBefore, mvAfter := level(finalize, "features_before", admin.FeatureMetadataVersion), level(finalize, "features_after", admin.FeatureMetadataVersion)
	if mvAfter <= mvBefore {
		t.Errorf("metadata.version %v before finalising, %v after: want it raised", mvBefore, mvAfter)
	}
	t.Logf("finalised: features before %v, after %v", finalize.Details["features_before"], finalize.Details["features_after"])

	// When broker 0's upgrade began: its clean shutdown flushed every
	// record acked before.
	var b0 int64 = -1
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FUpgrade && e.Type == histories.Invoke {
			var v histories.NemesisValue
			_ = e.Decode(&v)
			if n, _ := v.Details["node"].(float64); n == 0 && b0 < 0 {
				b0 = e.Time
			}
		}
	}
	final := r.finalValues(t)
	invoked := map[int]string{}
	acked, lost := 0, 0
	for _, e := range r.events {
		if e.F != histories.FSend || e.Process < 0 {
			continue
		}
		var v histories.SendValue
		_ = e.Decode(&v)
		if e.Type == histories.Invoke {
			invoked[e.Process] = v.Value
			continue
		}
		if e.Type == histories.OK && e.Time < b0 {
			acked++
			if !final[invoked[e.Process]] {
				lost++
			}
		}
	}
	if acked == 0 || lost != 0 {
		t.Errorf("sends acked before broker 0 was upgraded: %d, of them lost: %d; want some, none lost", acked, lost)
	}
	t.Logf("%d sends acked before broker 0 was upgraded, none lost", acked)
	return finalize
}

// elrSeen reports whether any observe sample showed an ELR or a
// LastKnownElr.
func (r scenarioRun) elrSeen(t *testing.T) bool {
	for _, e := range r.events {
		if e.F == histories.FObserve {
			var v histories.ObserveValue
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if len(v.ELR) > 0 || len(v.LastKnownELR) > 0 {
				return true
			}
		}
	}
	return false
}

// pinVersions keeps the scenario's own releases (created on 3.9.2,
// upgraded to the newest): make test's KCHAOS_KAFKA_VERSION would change
// the release the cluster is created on, which is the point of the story.
func pinVersions(t *testing.T) { t.Setenv(testenv.EnvKafkaVersion, "") }

func TestUpgradeU1InPlaceKeepsELROff(t *testing.T) {
	pinVersions(t)
	r := runScenario(t, "u1")
	fin := checkUpgrade(t, r)
	if l := level(fin, "features_after", admin.FeatureELR); l != 0 {
		t.Errorf("u1: eligible.leader.replicas.version %v after the upgrade, want 0 (off after an in-place upgrade)", l)
	}
	if r.elrSeen(t) {
		t.Error("u1: the observer saw an ELR although ELR is off")
	}
	if r.count(checker.LostWrite) == 0 {
		t.Error("u1: no acked record lost: the Last Replica Standing loss did not show after the upgrade")
	}
	t.Logf("u1: lost %d, reused %d", r.count(checker.LostWrite), r.count(checker.OffsetReuse))
}

func TestUpgradeU2ELRLive(t *testing.T) {
	// u1 is the upgrades' representative in make test (its budget: issue
	// text, 45 minutes); u2 runs under make test-scenarios.
	allScenarios(t)
	pinVersions(t)
	r := runScenario(t, "u2")
	checkUpgrade(t, r)
	sets := r.nemesisOps(t, histories.FSetFeature)
	if len(sets) != 2 {
		t.Fatalf("u2: %d set-feature ops, want the finalisation and the ELR flip", len(sets))
	}
	if b, a := level(sets[1], "features_before", admin.FeatureELR), level(sets[1], "features_after", admin.FeatureELR); b != 0 || a != 1 {
		t.Errorf("u2: eligible.leader.replicas.version %v before the flip, %v after; want 0 then 1", b, a)
	}
	if !r.elrSeen(t) {
		t.Error("u2: the observer never saw an ELR after ELR was enabled live")
	}
	if n := r.count(checker.LostWrite); n != 0 {
		t.Errorf("u2: %d acked records lost, want none with ELR on", n)
	}
	t.Logf("u2: lost %d, reused %d", r.count(checker.LostWrite), r.count(checker.OffsetReuse))
}
