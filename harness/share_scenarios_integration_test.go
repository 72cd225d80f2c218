//go:build integration

package harness_test

import (
	"testing"

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
func TestScenarioW1ShareMembersHoldingLocks(t *testing.T) {
	r := runScenario(t, "w1")
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
func TestScenarioW2ShareCoordinatorKilled(t *testing.T) {
	r := runScenario(t, "w2")
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
	confirmed := 0
	for _, e := range s.acks {
		if e.Time <= killedAt {
			continue
		}
		var v histories.ShareAckValue
		_ = e.Decode(&v)
		for _, a := range v.Acks {
			if a.Outcome == histories.ShareOutcomeOK && a.Status != histories.AckRenew {
				confirmed++
			}
		}
	}
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
	r := runScenario(t, "w4")
	for _, k := range []string{share.Lost, share.DoubleAcquire, share.RedeliveredAfterAccept, share.DeliveryCount, "lost-write"} {
		if n := r.count(k); n != 0 {
			t.Errorf("w4: %d %s, want none: %v", n, k, r.res.Reasons)
		}
	}
	cut := 0
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FLoseUnflushed && e.Type == histories.OK {
			cut++
		}
	}
	s := r.shares(t)
	if cut != 1 || s.offsets == nil || len(s.acks) == 0 {
		t.Fatalf("w4: %d power cuts, %d acks, start offsets %v: want one cut, acks and start offsets", cut, len(s.acks), s.offsets)
	}
	t.Logf("w4: counts %v; start offsets %v (drained %v)", r.res.Counts, s.offsets.StartOffsets, s.offsets.Drained)
}
