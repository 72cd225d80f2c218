package share

import (
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// inv and done write an op's invoke and its completion apart, so that
// other processes' ops can come between (windows that overlap).
func (h *hb) inv(proc int, f string, v any) {
	h.t += 10
	h.evs = append(h.evs, histories.Event{Time: h.t, Process: proc, Type: histories.Invoke, F: f, Value: js(v)})
}

func (h *hb) done(proc int, f string, typ histories.Type, v any) {
	h.t += 10
	h.evs = append(h.evs, histories.Event{Time: h.t, Process: proc, Type: typ, F: f, Value: js(v)})
}

// ackInv invokes an ack of offset off (delivery n); ackDone completes it
// with outcome.
func (h *hb) ackInv(proc int, n int32, off int64, status string) {
	a := histories.ShareAck{Partition: 0, Offset: off, Value: val(off), DeliveryCount: n, Status: status}
	h.inv(proc, histories.FShareAck, histories.ShareAckValue{Group: "g", Topic: "t", Acks: []histories.ShareAck{a}})
}

func (h *hb) ackDone(proc int, n int32, off int64, status, outcome string) {
	a := histories.ShareAck{Partition: 0, Offset: off, Value: val(off), DeliveryCount: n, Status: status, Outcome: outcome}
	h.done(proc, histories.FShareAck, histories.OK, histories.ShareAckValue{Group: "g", Topic: "t", Acks: []histories.ShareAck{a}})
}

// pollInv and pollDone are a share-poll of offset off at count n, apart.
func (h *hb) pollInv(proc int) {
	h.inv(proc, histories.FSharePoll, histories.SharePollValue{Group: "g", Topic: "t"})
}

func (h *hb) pollDone(proc int, n int32, off int64) {
	v := histories.SharePollValue{Group: "g", Topic: "t",
		Records: []histories.ShareRecord{{Partition: 0, Offset: off, Value: val(off), DeliveryCount: n}}}
	h.done(proc, histories.FSharePoll, histories.OK, v)
}

// TestShareTimeOrder: each rule resting on the time order of an ack's
// window and a redelivery's poll, beside its near miss (the legal shape).
func TestShareTimeOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(h *hb)
		want  map[string]int
	}{
		// p1's accept is in flight while p2's poll is handed the record
		// again, and is confirmed: either order breaks KIP-932 (an
		// accepted record delivered again, whichever came first).
		{"ack overlaps redelivery: p2's poll inside p1's accept", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.ackInv(1, 1, 0, acc)
			h.poll(2, 2, 0)
			h.ackDone(1, 1, 0, acc, ok)
			h.ack(2, 2, 0, acc, nok, histories.OK)
		}, map[string]int{RedeliveredAfterAccept: 1, Redelivery: 1}},
		{"ack overlaps redelivery: p2's poll began before p1's reject", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.pollInv(2)
			h.ackInv(1, 1, 0, rej)
			h.pollDone(2, 2, 0)
			h.ackDone(1, 1, 0, rej, ok)
		}, map[string]int{RedeliveredAfterAccept: 1, Redelivery: 1}},
		// Near miss: the broker refused the accept in flight.
		{"almost: the accept in flight refused", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.ackInv(1, 1, 0, acc)
			h.poll(2, 2, 0)
			h.ackDone(1, 1, 0, acc, nok)
			h.ack(2, 2, 0, acc, ok, histories.OK)
		}, map[string]int{Redelivery: 1}},
		// Near miss: a release in flight may have taken effect before p2
		// acquired the record: legal.
		{"almost: a release in flight", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.ackInv(1, 1, 0, rel)
			h.poll(2, 2, 0)
			h.ackDone(1, 1, 0, rel, ok)
			h.ack(2, 2, 0, acc, ok, histories.OK)
		}, map[string]int{Redelivery: 1}},
		// Near miss: p2's accept was invoked while p1's was in flight and
		// may have made the record final first (Kafka then answers p1's
		// with no error, applying nothing): unknown.
		{"unknown: the other member's accept may have come first", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.ackInv(1, 1, 0, acc)
			h.poll(2, 2, 0)
			h.ackInv(2, 2, 0, acc)
			h.ackDone(1, 1, 0, acc, ok)
			h.ackDone(2, 2, 0, acc, ok)
		}, map[string]int{Unknown: 1, Redelivery: 1}},
		// Boundary: p2's poll completed after the accept was confirmed.
		{"redelivered after accept: p2's poll outlasts the accept", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.pollInv(2)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.pollDone(2, 2, 0)
		}, map[string]int{RedeliveredAfterAccept: 1, Redelivery: 1}},
		// share-double-acquire compares processes: the member that holds
		// the lock (it acquired the record again) may ack it.
		{"not a double acquire: the same member acks after acquiring again", func(h *hb) {
			h.members(1)
			h.poll(1, 1, 0)
			h.poll(1, 2, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
		}, map[string]int{Redelivery: 1}},
		{"double acquire: another member acquired it again", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
		}, map[string]int{DoubleAcquire: 1, Redelivery: 1}},
		// p2 held it, then p1 acquired it again: p1 acks what it holds.
		{"not a double acquire: p1 took it back from p2 before acking", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.poll(1, 3, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
		}, map[string]int{Redelivery: 2}},
		{"double acquire: p2 took it from p1's second delivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(1, 2, 0)
			h.poll(2, 3, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
		}, map[string]int{DoubleAcquire: 1, Redelivery: 2}},
		// Across a cluster fault counts say nothing, and p1's second poll
		// overlaps p2's: whether p1 held the record when it acked is
		// unknown, never a violation.
		{"unknown: p1's acquisition after p2's uncertain across a fault", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.pollInv(2)
			h.fault()
			h.pollInv(1)
			h.pollDone(2, 2, 0)
			h.pollDone(1, 3, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
		}, map[string]int{Unknown: 1, Redelivery: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			tc.build(h)
			h.offsets(1)
			r := h.check(t, 1)
			got := counts(r)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, n := range tc.want {
				if got[k] != n {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
			for _, e := range append(r.ShareDoubleAcquire, r.ShareRedeliveredAfterAccept...) {
				named(t, e.Reason, "p1", "p2", "delivery 1", "s")
				if e.First.Member == "" || e.Second.Member == "" || e.First.DeliveredS == 0 {
					t.Errorf("entry without members or times: %+v", e)
				}
			}
			for _, e := range r.ShareUnknown {
				named(t, e.Reason, "partition 0 offset 0", "p1", "p2")
			}
		})
	}
}

// named fails unless text names every one of words.
func named(t *testing.T, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("%q does not name %q", text, w)
		}
	}
}

// TestAckOverlapsRedeliveryText: the entry (share-redelivered-after-
// accept, the ack's window containing the redelivery) names the record,
// both members and processes, both delivery counts and every time.
func TestAckOverlapsRedeliveryText(t *testing.T) {
	h := &hb{}
	h.members(2)
	h.poll(1, 1, 0)
	h.ackInv(1, 1, 0, acc)
	h.poll(2, 2, 0)
	h.ackDone(1, 1, 0, acc, ok)
	h.offsets(1)
	for i := range h.evs {
		h.evs[i].Time *= 1e7 // steps of 0.1 s
	}
	r := h.check(t, 1)
	if len(r.ShareRedeliveredAfterAccept) != 1 {
		t.Fatalf("entries %+v, want one", r.ShareRedeliveredAfterAccept)
	}
	e := r.ShareRedeliveredAfterAccept[0]
	named(t, e.Reason, "partition 0 offset 0", "p1's (m0) accept of delivery 1", "in flight from 0.700s to 1.000s",
		"p2 (m1)", "delivery 2", "its share-poll from 0.800s to 0.900s")
	if e.First.Process != 1 || e.Second.Process != 2 || e.First.DeliveryCount != 1 || e.Second.DeliveryCount != 2 ||
		len(e.First.Acks) != 1 || e.First.Acks[0].DoneS == nil {
		t.Fatalf("entry %+v: want p1's delivery 1 with its confirmed accept, and p2's delivery 2", e)
	}
}

// TestRedeliveryCausesRespectTime: a release or a refusal is a
// redelivery's cause only if invoked before the redelivery's poll
// completed; one invoked after cannot have caused it.
func TestRedeliveryCausesRespectTime(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(h *hb)
		want  string
	}{
		{"release invoked after the redelivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(1, 1, 0, rel, ok, histories.OK)
		}, causeLockExpiry},
		{"release invoked before, confirmed after the redelivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.ackInv(1, 1, 0, rel)
			h.poll(2, 2, 0)
			h.ackDone(1, 1, 0, rel, ok)
		}, causeRelease},
		{"refusal invoked after the redelivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(1, 1, 0, acc, nok, histories.OK)
		}, causeLockExpiry},
		{"refusal invoked before the redelivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.ack(1, 1, 0, acc, nok, histories.OK)
			h.poll(2, 2, 0)
		}, causeAckRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			tc.build(h)
			b := h.builder(t)
			b.finish()
			r := b.check(nil)
			if len(r.ShareRedelivery) != 1 || r.ShareRedelivery[0].Cause != tc.want {
				t.Fatalf("redeliveries %+v, want one by %s", r.ShareRedelivery, tc.want)
			}
		})
	}
}

// TestAcksOfFinalCountedOnce: an ack set aside as no evidence counts once
// in the stats, however many later deliveries it is weighed against.
func TestAcksOfFinalCountedOnce(t *testing.T) {
	h := &hb{}
	h.members(3)
	h.poll(1, 1, 0)
	h.poll(2, 2, 0)
	h.poll(3, 3, 0)
	h.ack(3, 3, 0, acc, ok, histories.OK)
	h.ack(1, 1, 0, acc, ok, histories.OK)
	h.offsets(1)
	r := h.check(t, 1)
	if r.Stats.AcksOfFinal != 1 || len(r.ShareDoubleAcquire) != 0 {
		t.Fatalf("acks of final records %d, double acquires %+v: want 1 and none", r.Stats.AcksOfFinal, r.ShareDoubleAcquire)
	}
}
