package share

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// hb builds a share history: each op is an invoke and a completion one
// time step apart.
type hb struct {
	t      int64
	evs    []histories.Event
	faults []int64 // when a nemesis op began (fault)
}

// fault puts a nemesis op (a broker kill) between the ops before and after.
func (h *hb) fault() {
	h.t += 10
	h.faults = append(h.faults, h.t)
}

func (h *hb) op(proc int, f string, typ histories.Type, inv, done any) {
	h.t += 10
	h.evs = append(h.evs, histories.Event{Time: h.t, Process: proc, Type: histories.Invoke, F: f, Value: js(inv)})
	h.t += 10
	h.evs = append(h.evs, histories.Event{Time: h.t, Process: proc, Type: typ, F: f, Value: js(done)})
}

func js(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

func (h *hb) sub(proc int, member string) {
	v := histories.ShareSubscribeValue{Group: "g", Member: member, Topic: "t", LockMS: 1000, DeliveryLimit: 3}
	h.op(proc, histories.FShareSubscribe, histories.OK, v, v)
}

// poll delivers offsets of partition 0 at delivery count n.
func (h *hb) poll(proc int, n int32, offs ...int64) {
	v := histories.SharePollValue{Group: "g", Topic: "t"}
	done := v
	for _, o := range offs {
		done.Records = append(done.Records, histories.ShareRecord{Partition: 0, Offset: o, Value: val(o), DeliveryCount: n})
	}
	h.op(proc, histories.FSharePoll, histories.OK, v, done)
}

func val(o int64) string { return string(rune('a' + o)) }

// ack acknowledges offset off (delivery n) with status and outcome; an
// empty outcome leaves the completion without it (unknown), typ is the
// op's own type.
func (h *hb) ack(proc int, n int32, off int64, status, outcome string, typ histories.Type) {
	a := histories.ShareAck{Partition: 0, Offset: off, Value: val(off), DeliveryCount: n, Status: status}
	inv := histories.ShareAckValue{Group: "g", Topic: "t", Acks: []histories.ShareAck{a}}
	done := inv
	a.Outcome = outcome
	done.Acks = []histories.ShareAck{a}
	h.op(proc, histories.FShareAck, typ, inv, done)
}

// members subscribes n members, m0 on process 1, m1 on process 2 and so on.
func (h *hb) members(n int) {
	for i := range n {
		h.sub(i+1, fmt.Sprintf("m%d", i))
	}
}

// deliver polls offset off at delivery count n and acknowledges it with
// status and outcome (an ok ack op).
func (h *hb) deliver(proc int, n int32, off int64, status, outcome string) {
	h.poll(proc, n, off)
	h.ack(proc, n, off, status, outcome, histories.OK)
}

func (h *hb) offsets(spso int64) {
	v := histories.ShareOffsetsValue{Group: "g", Topic: "t"}
	done := v
	done.StartOffsets = map[string]int64{"0": spso}
	done.Drained = true
	h.op(99, histories.FShareOffsets, histories.OK, v, done)
}

// builder feeds the history to a new Builder.
func (h *hb) builder(t *testing.T) *Builder {
	t.Helper()
	b := NewBuilder()
	for i := range h.evs {
		if err := b.Add(&h.evs[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	for _, f := range h.faults {
		b.nemesis("kill", []int32{0}, f, f+1)
	}
	return b
}

func (h *hb) check(t *testing.T, logEnd int64) *shares {
	t.Helper()
	b := h.builder(t)
	b.finish()
	log := &readLog{Records: map[int32][]logRecord{0: nil}, Ends: map[int32]int64{0: logEnd}}
	for o := int64(0); o < logEnd; o++ {
		log.Records[0] = append(log.Records[0], logRecord{Offset: o, Value: val(o)})
	}
	return b.check(log)
}

const (
	acc = histories.AckAccept
	rel = histories.AckRelease
	rej = histories.AckReject
	ok  = histories.ShareOutcomeOK
	nok = histories.ShareOutcomeFail
	unk = histories.ShareOutcomeInfo
)

func counts(r *shares) map[string]int {
	m := map[string]int{}
	for name, n := range map[string]int{Lost: len(r.ShareLost), DoubleAcquire: len(r.ShareDoubleAcquire),
		RedeliveredAfterAccept: len(r.ShareRedeliveredAfterAccept), DeliveryCount: len(r.ShareDeliveryCount),
		Redelivery: len(r.ShareRedelivery), Unknown: len(r.ShareUnknown)} {
		if n > 0 {
			m[name] = n
		}
	}
	return m
}

func TestShareAnomalies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(h *hb)
		end   int64
		want  map[string]int
	}{
		{"clean: two records accepted", func(h *hb) {
			h.members(1)
			h.poll(1, 1, 0, 1)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(1, 1, 1, acc, ok, histories.OK)
			h.offsets(2)
		}, 2, map[string]int{}},
		// share-lost: the start offset passed offset 1, whose only ack failed.
		{"lost: start offset passed a record without a final state", func(h *hb) {
			h.members(1)
			h.poll(1, 1, 0, 1)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(1, 1, 1, acc, nok, histories.OK)
			h.offsets(2)
		}, 2, map[string]int{Lost: 1}},
		// Almost: the same, but the failed ack's record was delivered
		// up to the limit: Kafka archived it.
		{"almost lost: archived at the delivery limit", func(h *hb) {
			h.members(1)
			h.poll(1, 1, 0, 1)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(1, 1, 1, rel, ok, histories.OK)
			h.deliver(1, 2, 1, rel, ok)
			h.deliver(1, 3, 1, acc, nok)
			h.offsets(2)
		}, 2, map[string]int{Redelivery: 2}},
		// Never delivered, at or past the start offset: lost when Kafka
		// went past it, or stopped handing it out for a whole record lock
		// while the members polled (skipped); not reached yet otherwise.
		{"lost: never delivered, a record after it was", func(h *hb) {
			h.members(1)
			h.deliver(1, 1, 0, acc, ok)
			h.deliver(1, 1, 2, acc, ok)
			h.offsets(1)
		}, 3, map[string]int{Lost: 1}},
		{"lost: never delivered, the members polled a record lock for nothing", func(h *hb) {
			h.members(1)
			h.deliver(1, 1, 0, acc, ok)
			h.t += 2e9 // the lock is 1 s
			h.poll(1, 1)
			h.offsets(1)
		}, 2, map[string]int{Lost: 1}},
		{"almost lost: the tail not reached when the drain ended", func(h *hb) {
			h.members(1)
			h.deliver(1, 1, 0, acc, ok)
			h.offsets(1)
		}, 2, map[string]int{Unknown: 1}},
		{"almost lost: idle a record lock, but no poll in it", func(h *hb) {
			h.members(1)
			h.deliver(1, 1, 0, acc, ok)
			h.t += 2e9
			h.offsets(1)
		}, 2, map[string]int{Unknown: 1}},
		// Almost: the ack's outcome is unknown: unknown, never lost.
		{"almost lost: an ack of unknown outcome", func(h *hb) {
			h.members(1)
			h.poll(1, 1, 0, 1)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(1, 1, 1, acc, "", histories.Info)
			h.offsets(2)
		}, 2, map[string]int{Unknown: 1}},
		// share-double-acquire: p2 held offset 0 (delivery 2) before p1's
		// accept of delivery 1 was invoked, and that accept was confirmed.
		{"double acquire: a confirmed ack after another member held it", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(2, 2, 0, acc, nok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{DoubleAcquire: 1, Redelivery: 1}},
		// Almost: the broker refused p1's late accept.
		{"almost double acquire: the late ack refused", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(1, 1, 0, acc, nok, histories.OK)
			h.ack(2, 2, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		// Not a double acquire: p2's accept was confirmed before p1's late
		// accept was invoked, so the record was final and Kafka's "no
		// error" to p1 is its answer to an ack below the start offset (w1,
		// 2026-12-02: 54 and 56 such records).
		{"not a double acquire: the late ack of a record another member's accept made final", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(2, 2, 0, acc, ok, histories.OK)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		{"not a double acquire: after another member's confirmed reject", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(2, 2, 0, rej, ok, histories.OK)
			h.ack(1, 1, 0, rel, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		{"not a double acquire: after a release at the delivery limit", func(h *hb) {
			h.members(2)
			h.poll(1, 2, 0)
			h.poll(2, 3, 0)
			h.ack(2, 3, 0, rel, ok, histories.OK)
			h.ack(1, 2, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		// Almost: p2's accept has no known outcome: it may have made the
		// record final before p1's accept, or not: unknown.
		{"unknown: the other member's accept of unknown outcome came first", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(2, 2, 0, acc, "", histories.Info)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{Unknown: 1, Redelivery: 1}},
		// Almost: p2 released (a release below the limit is not final):
		// the record was p2's or available, and p1's accept should have
		// been refused.
		{"double acquire: the late ack confirmed after the other member's release", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
			h.ack(2, 2, 0, rel, ok, histories.OK)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{DoubleAcquire: 1, Redelivery: 1}},
		{"double acquire: one delivery count handed to two members", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 1, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(2, 1, 0, acc, nok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{DoubleAcquire: 1}},
		// Almost: a fault between the two deliveries at one count (the
		// share-partition leader's power cut: the acquisition was not
		// persisted) and the first delivery's ack unknown: a redelivery.
		{"almost double acquire: one count again after a leader change", func(h *hb) {
			h.sub(1, "m0")
			h.poll(1, 2, 0)
			h.ack(1, 2, 0, acc, "", histories.Info)
			h.fault()
			h.poll(1, 2, 0)
			h.ack(1, 2, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		// But a confirmed ack of the first, invoked after the second
		// delivery, proves both held it at once, fault or not.
		{"double acquire: one count across a fault, the first ack confirmed late", func(h *hb) {
			h.sub(1, "m0")
			h.sub(2, "m1")
			h.poll(1, 1, 0)
			h.fault()
			h.poll(2, 1, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.ack(2, 1, 0, acc, nok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{DoubleAcquire: 1, Redelivery: 1}},
		// share-redelivered-after-accept, at a lower count: an unclean
		// election of __share_group_state lost the accept's state (w3,
		// 4.3.1); ordered by time across the fault, not by count.
		{"redelivered after accept at a lower count across a fault", func(h *hb) {
			h.sub(1, "m0")
			h.poll(1, 2, 0)
			h.ack(1, 2, 0, acc, ok, histories.OK)
			h.fault()
			h.poll(1, 1, 0)
			h.ack(1, 1, 0, acc, ok, histories.OK)
			h.offsets(1)
		}, 1, map[string]int{RedeliveredAfterAccept: 1, Redelivery: 1}},
		// share-redelivered-after-accept.
		{"redelivered after a confirmed accept", func(h *hb) {
			h.members(2)
			h.deliver(1, 1, 0, acc, ok)
			h.deliver(2, 2, 0, acc, ok)
			h.offsets(1)
		}, 1, map[string]int{RedeliveredAfterAccept: 1, Redelivery: 1}},
		// Almost: the accept was refused (the lock had expired).
		{"almost redelivered after accept: the accept refused", func(h *hb) {
			h.members(2)
			h.deliver(1, 1, 0, acc, nok)
			h.deliver(2, 2, 0, acc, ok)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		// Almost: a release, not an accept, came before the redelivery.
		{"almost redelivered after accept: released", func(h *hb) {
			h.members(2)
			h.deliver(1, 1, 0, rel, ok)
			h.deliver(2, 2, 0, rej, ok)
			h.offsets(1)
		}, 1, map[string]int{Redelivery: 1}},
		// share-delivery-count: past the limit (3), and 0.
		{"delivery count past the limit", func(h *hb) {
			h.members(1)
			h.deliver(1, 4, 0, acc, ok)
			h.offsets(1)
		}, 1, map[string]int{DeliveryCount: 1}},
		{"delivery count zero", func(h *hb) {
			h.members(1)
			h.deliver(1, 0, 0, acc, ok)
			h.offsets(1)
		}, 1, map[string]int{DeliveryCount: 1}},
		// Almost: at the limit exactly.
		{"almost delivery count: at the limit", func(h *hb) {
			h.members(1)
			h.deliver(1, 3, 0, acc, ok)
			h.offsets(1)
		}, 1, map[string]int{}},
		{"still in flight when the drain ended", func(h *hb) {
			h.members(1)
			h.poll(1, 1, 0)
			h.offsets(0)
		}, 1, map[string]int{Unknown: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			tc.build(h)
			got := counts(h.check(t, tc.end))
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, n := range tc.want {
				if got[k] != n {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestAcksOfFinalRecords: the late ack the double-acquire rule now sets
// aside is counted, and the entries show the broker's answer read on the
// wire.
func TestAcksOfFinalRecords(t *testing.T) {
	h := &hb{}
	h.members(2)
	h.poll(1, 1, 0)
	h.poll(2, 2, 0)
	h.ack(2, 2, 0, acc, ok, histories.OK)
	// p1's late accept, its completion carrying the broker's answer.
	a := histories.ShareAck{Partition: 0, Offset: 0, Value: val(0), DeliveryCount: 1, Status: acc}
	inv := histories.ShareAckValue{Group: "g", Topic: "t", Acks: []histories.ShareAck{a}}
	a.Outcome = ok
	a.Wire = &histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 7, Answered: true, Error: "NONE"}
	done := inv
	done.Acks = []histories.ShareAck{a}
	h.op(1, histories.FShareAck, histories.OK, inv, done)
	h.offsets(1)
	r := h.check(t, 1)
	if r.Stats.AcksOfFinal != 1 || len(r.ShareDoubleAcquire) != 0 {
		t.Fatalf("acks of final records %d, double acquires %d: want 1 and 0", r.Stats.AcksOfFinal, len(r.ShareDoubleAcquire))
	}
	if len(r.ShareRedelivery) != 1 || r.ShareRedelivery[0].Cause != causeLockExpiry {
		t.Fatalf("redeliveries %+v, want one by lock expiry", r.ShareRedelivery)
	}
	got := r.ShareRedelivery[0].From.Acks
	if len(got) != 1 || got[0].Wire == nil || got[0].Wire.Error != "NONE" || got[0].Wire.SessionEpoch != 7 {
		t.Fatalf("p1's ack as the entry shows it: %+v, want the broker's answer NONE at epoch 7", got)
	}
}

func TestRedeliveryCauses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(h *hb)
		want  string
	}{
		{"release", func(h *hb) {
			h.members(1)
			h.deliver(1, 1, 0, rel, ok)
			h.poll(1, 2, 0)
		}, causeRelease},
		{"ack refused", func(h *hb) {
			h.members(1)
			h.deliver(1, 1, 0, acc, nok)
			h.poll(1, 2, 0)
		}, causeAckRefused},
		{"member death", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.op(1, histories.FSharePoll, histories.Info, histories.SharePollValue{Group: "g"}, nil)
			h.poll(2, 2, 0)
		}, causeMemberDeath},
		{"fault", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.t += 10
			h.poll(2, 2, 0)
		}, causeFault},
		{"lock expiry", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, causeLockExpiry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			tc.build(h)
			b := h.builder(t)
			if tc.want == causeFault {
				b.nemesis("kill", []int32{1}, 85, 86) // between the two polls
			}
			b.finish()
			r := b.check(nil)
			if len(r.ShareRedelivery) != 1 || r.ShareRedelivery[0].Cause != tc.want {
				t.Fatalf("redeliveries %+v, want one by %s", r.ShareRedelivery, tc.want)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   histories.Event
		want string
	}{
		{"subscribe without lock", histories.Event{Process: 1, Type: histories.Invoke, F: histories.FShareSubscribe,
			Value: js(histories.ShareSubscribeValue{Group: "g", Member: "m", DeliveryLimit: 5})}, `"lock_ms"`},
		{"ack with an unknown status", histories.Event{Process: 1, Type: histories.Invoke, F: histories.FShareAck,
			Value: js(histories.ShareAckValue{Acks: []histories.ShareAck{{Status: "keep"}}})}, `status "keep"`},
		{"ack of a record never delivered", histories.Event{Process: 1, Type: histories.Invoke, F: histories.FShareAck,
			Value: js(histories.ShareAckValue{Acks: []histories.ShareAck{{Status: acc, Offset: 3, DeliveryCount: 1}}})}, "never delivered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder()
			err := b.Add(&tc.ev)
			if err == nil && tc.ev.F == histories.FShareAck {
				done := tc.ev
				done.Type = histories.OK
				err = b.Add(&done)
			}
			if err == nil || !contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
