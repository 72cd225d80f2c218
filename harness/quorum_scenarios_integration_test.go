//go:build integration

package harness_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
)

// TestScenarioQ1ActiveControllerIsolated: q1's outcome (docs/SCENARIOS.md)
// on a real 3-controller, 3-broker cluster, from the run's history and
// the cluster's own answers recorded in it: the from-voters cut was
// proven and cut exactly the active controller from the other two voters
// (no broker touched); a quorum sample showed another controller leading
// in a higher epoch during the cut; metadata changes were acknowledged
// before and after; every broker's final metadata read agrees and every
// controller reported its metadata log end offset; nothing acknowledged
// was lost (records or metadata) and no split brain; the scenario's own
// outcome checks hold. The resignation time is measured and logged.
//
// It runs in the plain integration suite (issue 26 asks for (a) on a real
// cluster), not only under make test-scenarios.
func TestScenarioQ1ActiveControllerIsolated(t *testing.T) {
	r := runScenario(t, "q1")
	r.wantValidNoLoss(t, "q1")
	cuts := r.nemesisOK(t, histories.FPartition)
	if len(cuts) != 1 {
		t.Fatalf("q1: %d ok partition ops, want 1", len(cuts))
	}
	cut := cuts[0]
	before, beforeEpoch, after := r.quorumAround(t, r.invokeAt(t, histories.FPartition, cut.at), r.healAt(t, histories.FPartition, cut.at))
	grudge, _ := cut.v.Details["grudge"].(map[string]any)
	others := slices.DeleteFunc([]int32{1000, 1001, 1002}, func(id int32) bool { return id == before })
	if got, want := fmt.Sprint(grudge[fmt.Sprint(before)]), fmt.Sprint(others); got != want {
		t.Errorf("q1: the cut isolates %d from %s, want the other voters %s (grudge %v)", before, got, want, grudge)
	}
	for _, b := range []string{"0", "1", "2"} {
		if _, ok := grudge[b]; ok {
			t.Errorf("q1: broker %s in the grudge %v: the brokers keep every link", b, grudge)
		}
	}
	if cut.v.Details["proof"] == nil {
		t.Errorf("q1: the cut has no proof: %v", cut.v.Details)
	}
	newLeader := slices.IndexFunc(after, func(q histories.QuorumValue) bool {
		return q.LeaderID >= 1000 && q.LeaderID != before && q.LeaderEpoch > beforeEpoch
	})
	if newLeader < 0 {
		t.Errorf("q1: no sample during the cut shows a leader other than %d in an epoch above %d", before, beforeEpoch)
	}
	okBefore, okAfter := 0, 0
	heal := r.healAt(t, histories.FPartition, cut.at)
	for _, e := range r.events {
		if slices.Contains(histories.MetadataOps, e.F) && e.Type == histories.OK {
			if e.Time < cut.at {
				okBefore++
			} else if e.Time > heal {
				okAfter++
			}
		}
	}
	if okBefore == 0 || okAfter == 0 {
		t.Errorf("q1: %d metadata changes acked before the cut, %d after the heal; want some of each", okBefore, okAfter)
	}
	r.wantMetadataRead(t, "q1")
	m := judged(t, r, "q1")
	t.Logf("q1: leader %d (epoch %d) cut at %.1f s; new leader %v after %v s; old leader last answered %v s after the cut; terms %+v; unavailable windows %+v",
		before, beforeEpoch, float64(cut.at)/1e9, m[expect.ControllerAfterFault], m[expect.NewControllerSeconds],
		m[expect.OldControllerClaimedSeconds], r.res.QuorumTerms, r.res.Anomalies.MetadataUnavailable)
}

// wantMetadataRead: the metadata final read asked every broker (at least
// once) and recorded each of the three controllers' metadata log end
// offsets, and the metadata domain found nothing lost, diverged or split.
func (r scenarioRun) wantMetadataRead(t *testing.T, story string) {
	t.Helper()
	for _, a := range []string{"metadata-lost", "metadata-diverged", "split-brain"} {
		if n := r.res.Counts[a]; n != 0 {
			t.Errorf("%s: %s %d, want 0: %+v", story, a, n, r.res.Anomalies)
		}
	}
	reads := map[string]int{}
	eachValue(t, r.events, okOf(histories.FMetadataRead), func(_ histories.Event, rd histories.MetadataRead) {
		reads[rd.Role]++
		if rd.Role == "controller" && rd.LogEndOffset <= 0 {
			t.Errorf("%s: controller %d reported metadata log end offset %d", story, rd.Node, rd.LogEndOffset)
		}
	})
	if reads["broker"] < 3 || reads["controller"] != 3 {
		t.Errorf("%s: metadata reads %v, want every broker (at least once) and the 3 controllers", story, reads)
	}
}

// quorumAround returns the active controller and epoch the quorum samples
// before at showed (the newest epoch's leader: the observer asks every
// controller, so a deposed one may still answer beside the new one), and
// the samples from at to until. Give it a fault's invoke (invokeAt), not
// its ok: the new leader's first claim can come before a fault's proof.
func (r scenarioRun) quorumAround(t *testing.T, at, until int64) (int32, int32, []histories.QuorumValue) {
	t.Helper()
	before, epoch := int32(-1), int32(-1)
	var last histories.QuorumValue
	var after []histories.QuorumValue
	for _, e := range r.events {
		if e.F != histories.FQuorum {
			continue
		}
		var q histories.QuorumValue
		if err := e.Decode(&q); err != nil {
			t.Fatal(err)
		}
		if e.Time < at {
			if q.LeaderEpoch >= epoch {
				before, epoch, last = q.LeaderID, q.LeaderEpoch, q
			}
		} else if e.Time < until {
			after = append(after, q)
		}
	}
	if before < 1000 {
		t.Fatalf("no quorum sample with a leader before %.1f s", float64(at)/1e9)
	}
	// The sample decodes Kafka's answer whole: the three voters, the
	// three brokers observing, the leader's own lag 0.
	if fmt.Sprint(last.VoterIDs()) != "[1000 1001 1002]" || len(last.Observers) < 3 ||
		!slices.ContainsFunc(last.Voters, func(v histories.QuorumReplica) bool { return v.ID == before && v.Lag == 0 && v.LogEndOffset > 0 }) {
		t.Errorf("the last quorum sample before %.1f s: %+v: want voters 1000-1002 (the leader's lag 0) and the 3 brokers observing", float64(at)/1e9, last)
	}
	return before, epoch, after
}

// TestScenarioQ2ActiveControllerPowerCut: q2's outcome (docs/SCENARIOS.md)
// on a real 3-controller, 3-broker cluster: the power loss took the
// controller that led just before it; a sample while it was down shows
// another leader in a higher epoch; after its restart a sample shows it a
// voter again with a metadata log end offset; nothing acknowledged lost
// (records or metadata), no split brain, every broker agrees; the
// scenario's own outcome checks hold.
//
// It runs under make test-scenarios (q1 represents the quorum in make
// test): in make test on 2026-12-02 its run was valid with nothing lost,
// but the first sample naming a new leader came 19.4 s after the power
// cut, after 1002 was back, so no sample while it was down showed one (an
// earlier run: 14.1 s). Why the samples, which reach the quorum through
// the brokers, take that long to name the new leader is the open question
// of q2 (docs/SCENARIOS.md).
func TestScenarioQ2ActiveControllerPowerCut(t *testing.T) {
	r, final, _ := finalQuorum(t, "q2")
	r.wantValidNoLoss(t, "q2")
	cuts := r.nemesisOK(t, histories.FLoseUnflushed)
	if len(cuts) != 1 {
		t.Fatalf("q2: %d ok lose-unflushed ops, want 1", len(cuts))
	}
	heal := r.healAt(t, histories.FKill, cuts[0].at)
	before, epoch, down := r.quorumAround(t, r.invokeAt(t, histories.FLoseUnflushed, cuts[0].at), heal)
	if fmt.Sprint(cuts[0].v.Nodes) != fmt.Sprint([]int32{before}) {
		t.Errorf("q2: the power loss took %v, want the active controller %d", cuts[0].v.Nodes, before)
	}
	if !slices.ContainsFunc(down, func(q histories.QuorumValue) bool {
		return q.LeaderID >= 1000 && q.LeaderID != before && q.LeaderEpoch > epoch
	}) {
		t.Errorf("q2: no sample while %d was down shows another leader in an epoch above %d", before, epoch)
	}
	// The samples are the controllers' own claims (admin.Controllers), so
	// the dead one makes none while it is down, and the new leader shows
	// when the survivors elect it, not when a broker's forwarding channel
	// gives up on the dead one (15-20 s on the defaults).
	_, _, dead := r.quorumAround(t, cuts[0].at, heal) // from the power loss's ok: the node is down
	for _, q := range dead {
		if q.From < 1000 || q.From != q.LeaderID || q.From == before {
			t.Errorf("q2: sample while %d was down: from %d, leader %d; want a claim by a live controller", before, q.From, q.LeaderID)
		}
	}
	// And Kafka's own DescribeQuorum at the end: the restarted controller
	// is a voter again, under a leader in an epoch above the one it led.
	if _, ok := final.Voter(before); !ok || final.LeaderEpoch <= epoch || len(final.Voters) != 3 {
		t.Errorf("q2: Kafka's quorum at the end %+v: want %d among three voters, epoch above %d", final, before, epoch)
	}
	_, _, later := r.quorumAround(t, heal, int64(1)<<62)
	back := slices.ContainsFunc(later, func(q histories.QuorumValue) bool {
		return slices.ContainsFunc(q.Voters, func(v histories.QuorumReplica) bool {
			return v.ID == before && v.LogEndOffset > 0 && v.Lag >= 0 && v.Lag < 1000
		})
	})
	if !back {
		t.Errorf("q2: no sample after the restart shows %d a voter caught up", before)
	}
	r.wantMetadataRead(t, "q2")
	m := judged(t, r, "q2")
	t.Logf("q2: leader %d (epoch %d) powered off at %.1f s; new leader %v after %v s; terms %+v; unavailable windows %+v",
		before, epoch, float64(cuts[0].at)/1e9, m[expect.ControllerAfterFault], m[expect.NewControllerSeconds],
		r.res.QuorumTerms, r.res.Anomalies.MetadataUnavailable)
}

// invokeAt is the time of the last invoke of nemesis op f before its ok at.
func (r scenarioRun) invokeAt(t *testing.T, f string, at int64) int64 {
	t.Helper()
	inv := int64(-1)
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.Type == histories.Invoke && e.F == f && e.Time <= at {
			inv = e.Time
		}
	}
	if inv < 0 {
		t.Fatalf("no invoke of %s before its ok at %.1f s", f, float64(at)/1e9)
	}
	return inv
}
