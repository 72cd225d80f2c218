package nemesis

import (
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestLeavesState: every registered fault kind says whether it leaves
// state a heal does not undo, and so whether kchaos explore may run the
// next run on the same cluster (harness.reuse). The table names every
// kind, so a new kind fails here until someone decides.
func TestLeavesState(t *testing.T) {
	leaves := map[string]bool{
		histories.FPartition: false, histories.FNetem: false, histories.FCutClients: false,
		histories.FPause: false, histories.FResume: false,
		histories.FKill: false, histories.FStart: false, histories.FRestart: false,
		// The restart recovers the cut log as after a crash; the
		// metadata log is never cut (nemesis/disk/powerloss.go).
		histories.FLoseUnflushed: false,
		histories.FSetConfig:     true, // topic: may name an internal topic
		histories.FElectUnclean:  false, histories.FElectPreferred: false,
		histories.FUpgrade: true, histories.FSetFeature: true,
		histories.FAddController: true, histories.FRemoveController: true,
		histories.FMoveCoordinator: true,  // __transaction_state's replicas
		histories.FMoveLeader:      false, // the run's own topic
		histories.FMemberKill:      false, histories.FMemberLeave: false, histories.FMemberStart: false, histories.FMemberStall: false,
		histories.FProducerCrash: false, histories.FStopProducers: false, histories.FAbortHanging: false,
		histories.FDiskFail: true, histories.FDiskFull: true, histories.FDiskSlow: true,
		// Request faults: their rules go at the heal; what a lost answer
		// makes Kafka do is the run's own topic's and groups' state.
		"drop-request": false, "drop-response": false, "delay": false, "duplicate-request": false,
		"reset-after-request": false, "error-response": false, "rewrite-error": false,
	}
	for _, k := range Kinds() {
		want, ok := leaves[k.Name]
		if !ok {
			t.Errorf("fault %s: not in this table; decide whether it leaves state a heal does not undo", k.Name)
			continue
		}
		if got := leavesState(k.Name) != ""; got != want {
			t.Errorf("fault %s: leaves state %v (%q), want %v", k.Name, got, k.LeavesState, want)
		}
	}
	if len(leaves) != len(Kinds()) {
		t.Errorf("table has %d kinds, registry %d", len(leaves), len(Kinds()))
	}
	// Every fault a random schedule can draw leaves nothing: an
	// exploration's runs share a cluster unless its mix is scripted.
	for _, name := range RandomFaultNames() {
		fault, _, _ := randomFault(name)
		if why := leavesState(fault); why != "" {
			t.Errorf("random fault %s leaves state: %s", name, why)
		}
	}
	if why := leavesState("no-such-fault"); !strings.Contains(why, "unknown") {
		t.Errorf("unknown fault: %q", why)
	}
}

// TestEnvLeaves: the Env remembers every fault kind invoked (not heals,
// waits or the schedule op) and names those that leave state.
func TestEnvLeaves(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults []string
		want   []string
	}{
		{"none", nil, nil},
		{"reusable", []string{histories.FKill, histories.FPartition, histories.FKill}, nil},
		{"one refuses", []string{histories.FPause, histories.FRemoveController}, []string{histories.FRemoveController + ": "}},
		{"two refuse", []string{histories.FUpgrade, histories.FDiskFail}, []string{histories.FDiskFail + ": ", histories.FUpgrade + ": "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Env{}
			e.record(histories.Invoke, histories.FSchedule, histories.NemesisValue{}, "")
			e.record(histories.Invoke, histories.FHeal, histories.NemesisValue{Fault: histories.HealAll}, "")
			for _, f := range tc.faults {
				e.record(histories.Invoke, f, histories.NemesisValue{Fault: f}, "")
				e.record(histories.OK, f, histories.NemesisValue{Fault: f}, "")
			}
			got := e.Leaves()
			if len(got) != len(tc.want) {
				t.Fatalf("leaves %q, want %d lines starting %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) || len(got[i]) <= len(tc.want[i]) {
					t.Errorf("line %d: %q, want %q and why", i, got[i], tc.want[i])
				}
			}
		})
	}
}
