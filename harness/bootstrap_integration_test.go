//go:build integration

package harness_test

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
)

// TestScenarioK20839BootstrapKill runs k20839's bootstrap schedule on a
// real cluster (faults while it starts, nemesis.bootstrap): the history
// opens with a schedule op in mode bootstrap; the until held once the
// controllers named a leader; the kill struck one controller, the one
// that led (the quorum role resolved from the controllers themselves,
// before any broker was up); the heal started it again; the cluster then
// came up, the workload acked, and run.json holds the metadata.version
// the cluster runs at, which the metric reads. Whether that level is the
// release's or KAFKA-20839's 1 is the race the findings cell measures,
// not this test's.
func TestScenarioK20839BootstrapKill(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "k20839")
	var modes []string
	var until, killed, healed bool
	var killedNodes []int32
	for _, e := range r.events {
		if e.Process != histories.NemesisProcess || e.Type == histories.Invoke {
			continue
		}
		var v histories.NemesisValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch e.F {
		case histories.FSchedule:
			modes = append(modes, v.Details["mode"].(string))
		case histories.FUntil:
			until = until || (len(modes) == 1 && e.Type == histories.OK)
		case histories.FKill:
			killed, killedNodes = len(modes) == 1 && e.Type == histories.OK, v.Nodes
		case histories.FHeal:
			healed = healed || (len(modes) == 1 && e.Type == histories.OK)
		}
	}
	if !slices.Equal(modes, []string{"bootstrap", "scripted"}) {
		t.Fatalf("schedule ops %v, want the bootstrap's first, then the run's", modes)
	}
	if !until || !killed || !healed {
		t.Fatalf("bootstrap: until held %v, kill ok %v, heal ok %v; want all three before the run's schedule", until, killed, healed)
	}
	if len(killedNodes) != 1 || killedNodes[0] < 1000 {
		t.Errorf("bootstrap kill struck %v, want the one controller that led", killedNodes)
	}
	m, err := harness.Metrics(r.out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	mv, ok := m[expect.MetadataVersionAtStart]
	if !ok || mv < 1 {
		t.Fatalf("metadata_version_at_start %v (measured %v): run.json should record the finalized level", mv, ok)
	}
	if m[expect.Acked] == 0 {
		t.Errorf("no record acked after the bootstrap")
	}
	t.Logf("k20839: the first leader %v killed while the cluster started; metadata.version %v at start", killedNodes, mv)
}
