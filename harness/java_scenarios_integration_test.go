//go:build integration

package harness_test

import (
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

// TestScenarioJavaDriver (issue 39): the seed stories through Apache
// Kafka's own Java client (workload.driver: java), judged as with the Go
// clients: s1 valid with nothing lost, s2's unclean election loss found
// and explained alike; and s1 with an older client (3.9.2's
// kafka-clients) against the cluster's release, as clusters are upgraded
// (brokers first, clients over months). In make test-scenarios; make
// test keeps the workload-level TestJavaIntegration (workloads).
func TestScenarioJavaDriver(t *testing.T) {
	allScenarios(t)
	t.Run("s1", func(t *testing.T) { assertS1(t, runScenario(t, "s1", "workload.driver=java")) })
	t.Run("s2", func(t *testing.T) { assertS2(t, runScenario(t, "s2", "workload.driver=java")) })
	t.Run("s1 client 3.9.2", func(t *testing.T) {
		assertS1(t, runScenario(t, "s1", "workload.driver=java", "workload.client_version=3.9.2"))
	})
}

// TestScenarioJavaTxnGroup (issue 39): the transaction and group seed
// stories through the Java client, judged as with franz-go: t1
// (transactions under a leader kill) exactly once, nothing committed lost,
// no aborted or uncommitted read (assertExactlyOnce); g1 (a member killed
// with a broker) under both protocols with nothing lost by commit, no
// commit going back, no acked write lost, no delivery outside the
// recorded assignment, and member-0's partitions moving to the others
// after its kill (its JVM killed: no LeaveGroup). In make
// test-scenarios; make test keeps the workload-level TestJavaTxnWorkload
// and TestJavaGroupWorkload (workloads).
func TestScenarioJavaTxnGroup(t *testing.T) {
	allScenarios(t)
	t.Run("t1", func(t *testing.T) {
		r := runScenario(t, "t1", "workload.driver=java")
		assertExactlyOnce(t, "t1", r)
	})
	for _, protocol := range []string{histories.ProtocolClassic, histories.ProtocolConsumer} {
		t.Run("g1/"+protocol, func(t *testing.T) {
			r := runScenario(t, "g1", "workload.driver=java", "workload.group.protocol="+protocol)
			assertJavaG1(t, r)
		})
	}
}

// assertJavaG1 is TestScenarioG1MemberKillDuringBrokerKill's judgement of
// a g1 run.
func assertJavaG1(t *testing.T, r scenarioRun) {
	t.Helper()
	g := r.group(t)
	st := r.res.Stats.Groups
	if st == nil || st.Delivered == 0 || g.commits[histories.OK] == 0 {
		t.Fatalf("g1: group stats %+v, commits %v: the group delivered or committed nothing", st, g.commits)
	}
	t.Logf("g1: %d member processes, %d rebalances, commits %v, delivered %d, redelivered %d, lost by commit %d",
		len(g.members), len(g.rebalances), g.commits, st.Delivered, st.Redelivered, st.LostByCommit)
	if len(g.outside) > 0 {
		t.Errorf("g1: %d deliveries outside the member's recorded assignment, first: %s", len(g.outside), g.outside[0])
	}
	for p, end := range g.ends {
		if end > 0 && g.delivered[p] == 0 {
			t.Errorf("g1: the group delivered nothing of partition %d (log end %d)", p, end)
		}
	}
	for _, k := range []string{checker.LostByCommit, checker.CommitBackwards, checker.LostWrite} {
		if n := r.count(k); n != 0 {
			t.Errorf("g1: %d %s, want none", n, k)
		}
	}
	kills := g.nemesisOK(histories.FMemberKill)
	if len(kills) != 1 || len(g.nemesisOK(histories.FMemberStart)) != 1 {
		t.Fatalf("g1: member kills %d, member starts %d: want one each", len(kills), len(g.nemesisOK(histories.FMemberStart)))
	}
	moved := false
	for _, e := range g.rebalances {
		var v histories.RebalanceValue
		_ = e.Decode(&v)
		if e.Time > kills[0].Time && g.members[e.Process] != "member-0" && len(v.Assigned) > 0 {
			moved = true
		}
	}
	if !moved {
		t.Error("g1: no other member was assigned partitions after member-0's kill")
	}
	if r.res.Valid == checker.Invalid {
		t.Errorf("g1: verdict invalid: %v", r.res.Reasons)
	}
}
