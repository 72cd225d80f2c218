//go:build integration

package harness_test

import (
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/histories"
)

// The share-group stories (issue 25) on a real cluster (Kafka 4.4.0
// unless KCHAOS_KAFKA_VERSION), asserted from the recorded history and
// results.json.

// shareRun is what a share story's history shows.
type shareRun struct {
	members map[int]string               // process -> member name
	polls   []histories.Event            // ok share-polls, in order
	acks    []histories.Event            // share-ack completions, in order
	offsets *histories.ShareOffsetsValue // the ok share-offsets
	kills   []histories.Event            // ok member-kill completions
}

func (r scenarioRun) shares(t *testing.T) shareRun {
	t.Helper()
	s := shareRun{members: map[int]string{}}
	for _, e := range r.events {
		switch {
		case e.F == histories.FShareSubscribe && e.Type == histories.OK:
			var v histories.ShareSubscribeValue
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			s.members[e.Process] = v.Member
		case e.F == histories.FSharePoll && e.Type == histories.OK:
			s.polls = append(s.polls, e)
		case e.F == histories.FShareAck && e.Type != histories.Invoke:
			s.acks = append(s.acks, e)
		case e.F == histories.FShareOffsets && e.Type == histories.OK:
			var v histories.ShareOffsetsValue
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			s.offsets = &v
		case e.Process == histories.NemesisProcess && e.F == histories.FMemberKill && e.Type == histories.OK:
			s.kills = append(s.kills, e)
		}
	}
	return s
}

// records decodes a share-poll's deliveries.
func sharePolled(t *testing.T, e histories.Event) []histories.ShareRecord {
	t.Helper()
	var v histories.SharePollValue
	if err := e.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.Records
}

// TestScenarioW1ShareMembersHoldingLocks: w1's members are stalled and
// killed while holding record locks; nothing is lost, no record is held
// twice or delivered again after a confirmed accept, and what the killed
// member held is delivered to a member again, with a higher count.
//
// Back in make test (2026-12-02): the 2 runs in 15 that found double
// acquires were Kafka answering the stalled member's late acks with
// error code 0 because another member's confirmed accepts had made the
// records final (SharePartition skips acks below the start offset;
// TestShareLateAckBelowStartOffset shows it on the wire, docs/findings.md).
// The checker no longer reads such an answer as holding, and this test
// accepts a confirmed late ack only for a record made final before it,
// with the broker's NONE read on the wire. Six runs on 4.4.0 after the
// change passed (the late acks refused, INVALID_RECORD_STATE on the wire).
func TestScenarioW1ShareMembersHoldingLocks(t *testing.T) { assertW1(t, runScenario(t, "w1")) }

// TestScenarioW1JavaShareConsumer: w1 through Apache Kafka's own
// KafkaShareConsumer (workload.driver java, issue 39: one JVM per member,
// so the kill is a SIGKILL) is judged as franz-go's run is, by the same
// assertions: the stalled member's late acks refused and its records
// handed over, the killed member's records delivered again, nothing lost.
// 2026-12-05, 4.4.0: valid, 3,121 records, 427 redeliveries (release 372,
// fault 28, ack-refused 27). A variant of w1, which make test keeps:
// make test-scenarios (make test was at 44 min on 2026-12-06).
func TestScenarioW1JavaShareConsumer(t *testing.T) {
	allScenarios(t)
	assertW1(t, runScenario(t, "w1", "workload.driver=java"))
}

// TestScenarioW2JavaImplicitAcks: w2 with the Java share consumer in
// share.acknowledgement.mode implicit (every delivered record accepted
// at the next commitSync; the mix accept only) under the share
// coordinator's kill (make test-scenarios).
func TestScenarioW2JavaImplicitAcks(t *testing.T) {
	allScenarios(t)
	assertW2(t, runScenario(t, "w2", "workload.driver=java", "workload.shares.ack_mode=implicit",
		"workload.shares.ack.release=0", "workload.shares.ack.reject=0"))
}

// assertW1 is w1's outcome from its run: the verdict valid and the
// scenario's own outcome checks matched, the stalled member's records
// given to the other member and its late acks refused, the killed
// member's records delivered again.
func assertW1(t *testing.T, r scenarioRun) {
	r.wantValidNoLoss(t, "w1")
	judged(t, r, "w1")
	for _, k := range []string{share.Lost, share.DoubleAcquire, share.RedeliveredAfterAccept, share.DeliveryCount} {
		if n := r.count(k); n != 0 {
			t.Errorf("w1: %d %s, want none: %v", n, k, r.res.Reasons)
		}
	}
	s := r.shares(t)
	if len(s.polls) == 0 || len(s.acks) == 0 || s.offsets == nil {
		t.Fatalf("w1: %d share-polls, %d share-acks, start offsets %v: the group consumed nothing or was never asked", len(s.polls), len(s.acks), s.offsets)
	}
	if len(s.kills) != 1 {
		t.Fatalf("w1: %d member kills, want 1", len(s.kills))
	}
	r.wantStallHandedOver(t, s)
	// The killed member's process: the last subscribed under share-1
	// before the kill. What its last poll delivered it never acked.
	killedAt := s.kills[0].Time
	var held []histories.ShareRecord
	victim := -1
	for _, e := range s.polls {
		if e.Time < killedAt && s.members[e.Process] == "share-1" {
			victim = e.Process
			if recs := sharePolled(t, e); len(recs) > 0 {
				held = recs
			}
		}
	}
	for _, e := range s.acks {
		if e.Process == victim {
			var v histories.ShareAckValue
			_ = e.Decode(&v)
			for _, a := range v.Acks {
				for i, h := range held {
					if h.Partition == a.Partition && h.Offset == a.Offset && h.DeliveryCount == a.DeliveryCount {
						held = append(held[:i], held[i+1:]...)
						break
					}
				}
			}
		}
	}
	if len(held) == 0 {
		t.Fatalf("w1: the killed member (p%d) held no unacked records at its kill: the story did not kill it holding locks", victim)
	}
	back := 0
	for _, h := range held {
		for _, e := range s.polls {
			if e.Time <= killedAt || e.Process == victim {
				continue
			}
			for _, rec := range sharePolled(t, e) {
				if rec.Partition == h.Partition && rec.Offset == h.Offset && rec.DeliveryCount > h.DeliveryCount {
					back++
				}
			}
		}
	}
	if back == 0 {
		t.Errorf("w1: none of the %d records the killed member held was delivered again", len(held))
	}
	if r.count(share.Redelivery) == 0 {
		t.Errorf("w1: no redelivery recorded, though a member was killed holding %d records", len(held))
	}
	t.Logf("w1: %d member processes, %d polls, %d acks, %d held at the kill (%d redeliveries of them), counts %v, start offsets %v (drained %v)",
		len(s.members), len(s.polls), len(s.acks), len(held), back, r.res.Counts, s.offsets.StartOffsets, s.offsets.Drained)
}

// TestScenarioW2ShareCoordinatorKilled: w2 kills the share coordinator's
// broker under load and restarts it; acks are confirmed after the kill
// (progress resumes), nothing is lost, no record is held twice or
// delivered again after a confirmed accept.
func TestScenarioW2ShareCoordinatorKilled(t *testing.T) { assertW2(t, runScenario(t, "w2")) }

// assertW2 is w2's outcome from its run: the verdict valid (or unknown
// only by acks in flight at the kill: w2 on 4.2.2, 2026-12-02, had 14,
// answered INVALID_SHARE_SESSION_EPOCH), the scenario's own outcome checks
// matched, acks confirmed before the kill (the fault struck a consuming
// group) and after it.
func assertW2(t *testing.T, r scenarioRun) {
	r.wantNoLossUnknownOnlyAtFault(t, "w2")
	judged(t, r, "w2")
	for _, k := range []string{share.Lost, share.DoubleAcquire, share.RedeliveredAfterAccept, share.DeliveryCount} {
		if n := r.count(k); n != 0 {
			t.Errorf("w2: %d %s, want none: %v", n, k, r.res.Reasons)
		}
	}
	s := r.shares(t)
	if s.offsets == nil {
		t.Fatal("w2: no start offsets recorded")
	}
	var killedAt int64 = -1
	var killed []int32
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FKill && e.Type == histories.OK {
			var v histories.NemesisValue
			_ = e.Decode(&v)
			killedAt, killed = e.Time, v.Nodes
			break
		}
	}
	if killedAt < 0 {
		t.Fatal("w2: the share coordinator's broker was never killed")
	}
	if n := confirmedBetween(t, s, 0, killedAt); n == 0 {
		t.Errorf("w2: no ack confirmed before broker %v (the share coordinator) was killed: the fault struck a group that was not consuming", killed)
	}
	confirmed := confirmedBetween(t, s, killedAt, -1)
	if confirmed == 0 {
		t.Errorf("w2: no ack confirmed after broker %v (the share coordinator) was killed: progress did not resume", killed)
	}
	t.Logf("w2: killed %v at %.1fs; %d acks confirmed after; counts %v; start offsets %v (drained %v)",
		killed, float64(killedAt)/1e9, confirmed, r.res.Counts, s.offsets.StartOffsets, s.offsets.Drained)
}

// TestScenarioW4ShareLeaderPowerLoss: w4's data partition leader loses
// power (acks all, min.insync 2): no accepted record comes back, nothing
// is lost (make test-scenarios).
func TestScenarioW4ShareLeaderPowerLoss(t *testing.T) {
	allScenarios(t)
	assertW4(t, runScenario(t, "w4"))
}

// assertW4 is w4's outcome from its run.
func assertW4(t *testing.T, r scenarioRun) {
	for _, k := range []string{share.Lost, share.DoubleAcquire, share.RedeliveredAfterAccept, share.DeliveryCount, "lost-write"} {
		if n := r.count(k); n != 0 {
			t.Errorf("w4: %d %s, want none: %v", n, k, r.res.Reasons)
		}
	}
	r.wantNoLossUnknownOnlyAtFault(t, "w4")
	judged(t, r, "w4")
	cut, cutAt := 0, int64(-1)
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FLoseUnflushed && e.Type == histories.Invoke && cutAt < 0 {
			cutAt = e.Time
		}
		if e.Process == histories.NemesisProcess && e.F == histories.FLoseUnflushed && e.Type == histories.OK {
			cut++
		}
	}
	s := r.shares(t)
	if cut != 1 || s.offsets == nil || len(s.acks) == 0 {
		t.Fatalf("w4: %d power cuts, %d acks, start offsets %v: want one cut, acks and start offsets", cut, len(s.acks), s.offsets)
	}
	// The story is the leader change under a consuming group: partition 0
	// delivered and acks confirmed before the cut.
	p0 := 0
	for _, e := range s.polls {
		if e.Time < cutAt {
			for _, rec := range sharePolled(t, e) {
				if rec.Partition == 0 {
					p0++
				}
			}
		}
	}
	if n := confirmedBetween(t, s, 0, cutAt); p0 == 0 || n == 0 {
		t.Errorf("w4: before the power cut partition 0 delivered %d records and %d acks were confirmed: the cut struck a group that was not consuming", p0, n)
	}
	t.Logf("w4: counts %v; start offsets %v (drained %v)", r.res.Counts, s.offsets.StartOffsets, s.offsets.Drained)
}

// TestScenarioW3ShareStateUnclean: w3 switches unclean election on for
// __share_group_state, cuts the share coordinator off from the other
// brokers while it confirms acks alone, kills it, and a follower that
// lacks that state is elected (make test-scenarios). What the group
// loses or delivers again is measured and logged, not assumed; the test
// asserts that the story played out as written (the set-config on
// __share_group_state, partition 0 led by the coordinator that is cut
// off and killed) and the scenario's own outcome checks (nothing acked
// lost from the data topic).
func TestScenarioW3ShareStateUnclean(t *testing.T) {
	allScenarios(t)
	assertW3(t, runScenario(t, "w3"))
}

// assertW3 is w3's outcome from its run.
func assertW3(t *testing.T, r scenarioRun) {
	judged(t, r, "w3")
	var setAt, cutAt, killedAt int64 = -1, -1, -1
	var killed []int32
	movedTo := int32(-1)
	for _, e := range r.events {
		if e.Process != histories.NemesisProcess || e.Type != histories.OK {
			continue
		}
		var v histories.NemesisValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.F == histories.FSetConfig && setAt < 0:
			if v.Details["topic"] != "__share_group_state" {
				t.Errorf("w3: set-config changed topic %v, want __share_group_state", v.Details["topic"])
			}
			setAt = e.Time
		case e.F == histories.FMoveLeader && len(v.Nodes) == 1:
			movedTo = v.Nodes[0]
		case e.F == histories.FPartition && cutAt < 0:
			cutAt = e.Time
		case e.F == histories.FKill && killedAt < 0:
			killedAt, killed = e.Time, v.Nodes
		}
	}
	if setAt < 0 || cutAt < setAt || killedAt < cutAt || len(killed) != 1 {
		t.Fatalf("w3: set-config at %d, cut at %d, kill of %v at %d: want all three, in that order", setAt, cutAt, killed, killedAt)
	}
	s := r.shares(t)
	if s.offsets == nil {
		t.Fatal("w3: no start offsets recorded")
	}
	if movedTo < 0 || len(killed) == 1 && movedTo != killed[0] {
		t.Errorf("w3: partition 0's leadership moved to broker %d, but broker %v was killed as its share coordinator", movedTo, killed)
	}
	// Measured, not required: on 4.4.0 (2026-12-02) the cut-off
	// coordinator confirmed no ack (the members' acks were answered
	// INVALID_SHARE_SESSION_EPOCH) though its state partition took writes
	// alone that the unclean election then truncated.
	alone := confirmedBetween(t, s, cutAt, killedAt)
	after := 0
	for _, e := range s.polls {
		if e.Time > killedAt {
			after += len(sharePolled(t, e))
		}
	}
	t.Logf("w3 MEASURED: verdict %s; coordinator %v cut at %.1f s, killed at %.1f s; %d deliveries after the kill; %d acks confirmed before the cut, %d while it was cut off, %d after the kill; "+
		"share-lost %d, share-redelivered-after-accept %d, share-double-acquire %d, share-delivery-count %d, share-unknown %d, share-redelivery %d; start offsets %v (drained %v)",
		r.res.Valid, killed, float64(cutAt)/1e9, float64(killedAt)/1e9, after, confirmedBetween(t, s, 0, cutAt), alone, confirmedBetween(t, s, killedAt, -1),
		r.count(share.Lost), r.count(share.RedeliveredAfterAccept), r.count(share.DoubleAcquire), r.count(share.DeliveryCount), r.count(share.Unknown), r.count(share.Redelivery),
		s.offsets.StartOffsets, s.offsets.Drained)
}

// wantNoLossUnknownOnlyAtFault asserts a story that strikes the brokers
// while members' acks are in flight: nothing lost, and a valid verdict,
// or an unknown one only by share-unknown records whose unknown ack came
// with the fault. Such an ack has no known outcome, and the charter keeps
// it out of a verdict: w4 on 4.4.0 (2026-12-02) had 16 accepts and
// rejects in flight at the power cut answered INVALID_SHARE_SESSION_EPOCH
// and never delivered again (the start offset passed them: Kafka had
// applied them).
func (r scenarioRun) wantNoLossUnknownOnlyAtFault(t *testing.T, story string) {
	t.Helper()
	if n := r.count(checker.LostWrite) + r.count(checker.OffsetReuse); n != 0 {
		t.Errorf("%s: %d lost writes or reused offsets, want none", story, n)
	}
	switch r.res.Valid {
	case checker.Valid:
	case checker.Unknown:
		unk := r.res.Anomalies.ShareUnknown
		if len(unk) == 0 || r.count("unseen") != 0 {
			t.Errorf("%s: verdict unknown, not only by share-unknown records (%d): %v", story, len(unk), r.res.Reasons)
		}
		for _, e := range unk {
			if len(e.Faults) == 0 {
				t.Errorf("%s: %d@%d unknown with no fault around it: %s", story, e.Partition, e.Offset, e.Reason)
			}
		}
		t.Logf("%s: verdict unknown by %d share-unknown records, each at a fault", story, len(unk))
	default:
		t.Errorf("%s: verdict %s, want valid (or unknown by acks in flight at the fault): %v", story, r.res.Valid, r.res.Reasons)
	}
}
