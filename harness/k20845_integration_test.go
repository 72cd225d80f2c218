//go:build integration

package harness_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/brokerlogs"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// k20845Affected are the releases kchaos knows whose jars lack
// apache/kafka#22969 (docs/findings.md, "Per-version facts").
var k20845Affected = []string{"4.0.2", "4.1.2", "4.3.1"}

// TestScenarioK20845MixedGroupDowngrade runs the findings cell k20845 and
// asserts its story from the run folder:
//
//  1. the group was mixed: subscribe ops of both protocols;
//  2. the coordinator downgraded it to a classic group and upgraded it
//     back (its own log lines say so);
//  3. on a release with the fix, the coordinator that took over after the
//     kill loaded __consumer_offsets and answered the read-back
//     (group_read_backs_unanswered == 0, the outcome holds, no
//     coordinator-load-failed marker); on one without it, the bug is a
//     race (the downgrade must be written while no batch is open), so a
//     run that shows it must show it whole: the marker, the read-back
//     unanswered, the outcome red.
//
// make test runs it on the default release (fixed); a nightly matrix on
// KCHAOS_KAFKA_VERSION=4.0.2 runs the affected side.
func TestScenarioK20845MixedGroupDowngrade(t *testing.T) {
	v := testenv.KafkaVersion()
	if strings.HasPrefix(v, "3.") {
		t.Skipf("KCHAOS_KAFKA_VERSION=%s: the consumer protocol needs 4.0", v)
	}
	r := runScenario(t, "k20845")
	protocols := map[string]bool{}
	for _, e := range r.events {
		if e.F == histories.FSubscribe && e.Type == histories.Invoke {
			var sv histories.SubscribeValue
			if err := e.Decode(&sv); err != nil {
				t.Fatal(err)
			}
			protocols[sv.Protocol] = true
		}
	}
	if !protocols[histories.ProtocolClassic] || !protocols[histories.ProtocolConsumer] {
		t.Fatalf("k20845: members subscribed with %v, want both protocols (a mixed group)", protocols)
	}
	logs := brokerLogText(t, r.out.Dir)
	for _, line := range []string{"Converted the consumer group to a classic group", "Downgrade group k20845 from consumer to classic"} {
		if !strings.Contains(logs, line) {
			t.Errorf("k20845: no broker logged %q: the group was not downgraded", line)
		}
	}
	m, err := harness.Metrics(r.out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	unanswered, measured := m[expect.GroupReadBacksUnanswered]
	if !measured {
		t.Fatal("k20845: group_read_backs_unanswered not measured: the run recorded no group-final")
	}
	sum, err := brokerlogs.Read(r.out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	loadFailed := slices.ContainsFunc(sum.Markers, func(mk brokerlogs.Marker) bool { return mk.Name == brokerlogs.MCoordinatorLoadFailed })
	s, err := scenario.Load("k20845", nil)
	if err != nil {
		t.Fatal(err)
	}
	status, _ := expect.Judge(s.Checks(), s.Settings(), m)
	t.Logf("k20845 on %q: read-backs unanswered %v, coordinator-load-failed %v, outcome %s", v, unanswered, loadFailed, status)
	switch {
	case !slices.Contains(k20845Affected, v):
		if unanswered != 0 || loadFailed || status != expect.Match {
			t.Errorf("k20845 on a release with the fix: unanswered %v, load failed %v, outcome %s; want 0, false, %s", unanswered, loadFailed, status, expect.Match)
		}
	case unanswered == 0 && !loadFailed:
		t.Logf("k20845: the bug did not show in this run (a race: the downgrade was written into an open batch)")
	case unanswered != 1 || !loadFailed || status != expect.Differ:
		t.Errorf("k20845 showed in part: unanswered %v, load failed %v, outcome %s; want 1, true, %s", unanswered, loadFailed, status, expect.Differ)
	}
}

// brokerLogText is every broker log of a run folder, joined.
func brokerLogText(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "logs", "broker-*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("broker logs in %s: %v (%d files)", dir, err, len(files))
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}
