package harness

import (
	"context"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
)

// TestClaimReuse: the one decision of which cluster a run gets. A run
// announced by its batch (Announce: the exploration's own runs, and a
// shrink's candidates, announced with nil because the next candidate is
// not known yet) takes the cluster the run before kept when its settings
// fit, and may keep its own for the next; an announced next run of other
// settings, an unannounced run (a shrink's final rerun: the repro's rate
// as `kchaos run` measures it), and a batch without reuse (--fresh;
// matrix, suite, audit with a nil provider) get a fresh cluster, and the
// kept one is torn down first (one cluster at a time).
func TestClaimReuse(t *testing.T) {
	s := loadS2(t)
	other := loadS2(t, "cluster.brokers=4")
	for _, tc := range []struct {
		name      string
		nilCS     bool // a nil *Clusters: fresh for every run
		keep      bool // NewClusters(keep)
		held      *scenario.Scenario
		announce  bool
		next      *scenario.Scenario
		wantLease bool // runs on the kept cluster
		wantKeep  bool // may leave its own to the next run
		wantTorn  bool // the kept cluster is torn down
	}{
		{name: "candidate: announced, next unknown", keep: true, held: s, announce: true, wantLease: true, wantKeep: true},
		{name: "exploration run: next of the same cluster", keep: true, held: s, announce: true, next: s, wantLease: true, wantKeep: true},
		{name: "next of other settings", keep: true, held: s, announce: true, next: other, wantTorn: true},
		{name: "final rerun: not announced", keep: true, held: s, wantTorn: true},
		{name: "kept cluster of other settings", keep: true, held: other, announce: true, wantKeep: true, wantTorn: true},
		{name: "nothing kept yet", keep: true, announce: true, wantKeep: true},
		{name: "--fresh", keep: false, announce: true},
		{name: "nil provider", nilCS: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs *Clusters
			if !tc.nilCS {
				cs = NewClusters(tc.keep)
			}
			torn := false
			if tc.held != nil {
				cs.keep.put(&held{teardown: func() error { torn = true; return nil }, key: reuseKey(tc.held), last: "run-a", runs: 1})
			}
			if tc.announce {
				cs.Announce(tc.next, t.TempDir())
			}
			cl := cs.claim(context.Background(), s, Options{})
			if got := cl.lease != nil; got != tc.wantLease {
				t.Errorf("lease %v, want %v", got, tc.wantLease)
			}
			if got := cl.keep != nil; got != tc.wantKeep {
				t.Errorf("may keep %v, want %v", got, tc.wantKeep)
			}
			if torn != tc.wantTorn {
				t.Errorf("kept cluster torn down %v, want %v", torn, tc.wantTorn)
			}
			if tc.wantLease && (cl.s.Topic.Name != s.Topic.Name+freshSuffix(1) || !sameCluster(cl.s, s)) {
				t.Errorf("a run on a kept cluster runs topic %q, want fresh names (%q)", cl.s.Topic.Name, s.Topic.Name+freshSuffix(1))
			}
			if !tc.wantLease && cl.s != s {
				t.Error("a run on a fresh cluster got other names")
			}
			if cl.ahead != nil && tc.next == nil {
				t.Error("a cluster is started ahead for a run not known")
			}
		})
	}
}
