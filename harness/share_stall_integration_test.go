//go:build integration

package harness_test

import (
	"fmt"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// w1's stall, read from the history: which poll share-0 held, its late
// acks and what became of the records it held.

// wantStallHandedOver asserts w1's stall: what share-0's first poll after
// the member-stall op delivered (held 8 s, past the 5 s lock) is
// delivered again, every record of it, with a higher count and no sooner
// than the lock after that poll, and every one of share-0's late acks of
// it is refused (the broker no longer held the lock for it). Which member
// gets them again is Kafka's choice: with two members on two partitions
// the share assignor gives each member one partition, so they come back
// to share-0 itself (2026-12-02, 4.4.0: all 50 at count 2, 14 ms after
// its late ack was refused with INVALID_RECORD_STATE).
func (r scenarioRun) wantStallHandedOver(t *testing.T, s shareRun) {
	t.Helper()
	// The stall is ordered at its invoke; the member takes it between
	// two rounds, so the round under way then (its poll completing after
	// the invoke, or after the op's ok, which the nemesis records once
	// it is told, as the member goes on) acks as usual, and the stall
	// holds the next poll that delivers records. So the held poll is one
	// of share-0's first two record-bearing polls after the invoke: the
	// one whose acks came past the 5 s lock.
	orderedAt := int64(-1)
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FMemberStall && e.Type == histories.Invoke {
			orderedAt = e.Time
			break
		}
	}
	if orderedAt < 0 {
		t.Fatal("w1: no member-stall op invoked")
	}
	var poll *histories.Event
	var gaps []string
	for i, e := range s.polls {
		if e.Time <= orderedAt || s.members[e.Process] != "share-0" || len(sharePolled(t, e)) == 0 {
			continue
		}
		next := int64(-1)
		for _, a := range s.acks {
			if a.Process == e.Process && a.Time > e.Time {
				next = a.Time
				break
			}
		}
		if next < 0 || next-e.Time >= 5e9 {
			poll = &s.polls[i]
			break
		}
		gaps = append(gaps, fmt.Sprintf("%.1f s", float64(next-e.Time)/1e9))
		if len(gaps) == 2 {
			break
		}
	}
	if poll == nil {
		t.Fatalf("w1: share-0's first polls after its stall was ordered acked %v later: none held its records past the 5 s lock", gaps)
	}
	held := sharePolled(t, *poll)
	var late *histories.ShareAckValue
	var lateAt int64
	for _, e := range s.acks {
		if e.Process == poll.Process && e.Time > poll.Time {
			var v histories.ShareAckValue
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			late, lateAt = &v, e.Time
			break
		}
	}
	if late == nil {
		t.Fatalf("w1: share-0 (p%d) never acked the %d records it held through its stall", poll.Process, len(held))
	}
	if lateAt-poll.Time < 5e9 {
		t.Errorf("w1: share-0's acks came %.1f s after its poll: it did not hold the records past the 5 s lock", float64(lateAt-poll.Time)/1e9)
	}
	// The late acks' invoke: the process's last share-ack invoke before
	// their completion.
	lateInv := int64(-1)
	for _, e := range r.events {
		if e.Process == poll.Process && e.F == histories.FShareAck && e.Type == histories.Invoke && e.Time < lateAt {
			lateInv = e.Time
		}
	}
	refused, ofFinal := 0, 0
	for _, a := range late.Acks {
		switch {
		case a.Status == histories.AckRenew:
		case a.Outcome == histories.ShareOutcomeOK && s.finalBefore(t, poll.Process, a.Partition, a.Offset, lateInv) &&
			a.Wire != nil && a.Wire.Answered && a.Wire.Error == "NONE":
			// Another member's accept or reject of the record was confirmed
			// before: Kafka answers an ack below the share-partition start
			// offset with error code 0 without applying it (SharePartition
			// skips it; docs/SCENARIOS.md, w1), as the wire shows.
			ofFinal++
		case a.Outcome == histories.ShareOutcomeOK:
			t.Errorf("w1: share-0's late %s of %d@%d (count %d) was confirmed %.1f s after its poll, past the lock, and no other member had made the record final (broker's answer %+v)",
				a.Status, a.Partition, a.Offset, a.DeliveryCount, float64(lateAt-poll.Time)/1e9, a.Wire)
		default:
			refused++
		}
	}
	back := 0
	for _, h := range held {
	next:
		for _, e := range s.polls {
			if e.Time <= poll.Time {
				continue
			}
			for _, rec := range sharePolled(t, e) {
				if rec.Partition == h.Partition && rec.Offset == h.Offset && rec.DeliveryCount > h.DeliveryCount {
					if e.Time-poll.Time < 5e9 {
						t.Errorf("w1: %d@%d, held by share-0 from %.1f s, delivered again to p%d %.1f s later, before its 5 s lock ran out",
							h.Partition, h.Offset, float64(poll.Time)/1e9, e.Process, float64(e.Time-poll.Time)/1e9)
					}
					back++
					break next
				}
			}
		}
	}
	if back != len(held) {
		t.Errorf("w1: %d of the %d records share-0 held through its stall were delivered again, want all", back, len(held))
	}
	t.Logf("w1: share-0 stalled holding %d records; %d of them delivered again, %d of its late acks refused, %d answered no error after another member had made the record final",
		len(held), back, refused, ofFinal)
}

// finalBefore reports whether a process other than proc had an accept or
// reject of partition p offset off confirmed before time at.
func (s shareRun) finalBefore(t *testing.T, proc int, p int32, off int64, at int64) bool {
	t.Helper()
	for _, e := range s.acks {
		if e.Process == proc || e.Time >= at {
			continue
		}
		var v histories.ShareAckValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, a := range v.Acks {
			if a.Partition == p && a.Offset == off && a.Outcome == histories.ShareOutcomeOK &&
				(a.Status == histories.AckAccept || a.Status == histories.AckReject) {
				return true
			}
		}
	}
	return false
}

// confirmedBetween counts the acks (accept, release, reject) Kafka
// confirmed whose share-ack completed in (from, to]; to < 0: no end.
func confirmedBetween(t *testing.T, s shareRun, from, to int64) int {
	t.Helper()
	n := 0
	for _, e := range s.acks {
		if e.Time <= from || to >= 0 && e.Time > to {
			continue
		}
		var v histories.ShareAckValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, a := range v.Acks {
			if a.Outcome == histories.ShareOutcomeOK && a.Status != histories.AckRenew {
				n++
			}
		}
	}
	return n
}
