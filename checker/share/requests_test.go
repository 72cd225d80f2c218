package share

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestRequestCause: a request fault's action on the delivering member's
// own requests between the delivery and the redelivery is the
// redelivery's cause, named in the entry; one on another member's
// client, or outside the window, is not. Release, a refused ack and the
// member's death still come first, and the verdict never moves. The two
// polls: m0 (p1) is delivered offset 0 at 60, m1 (p2) again at 80.
func TestRequestCause(t *testing.T) {
	drop := func(client string) histories.RequestAction {
		return histories.RequestAction{Rule: 1, Action: "drop-request", API: "ShareAcknowledge", Version: 2,
			CorrelationID: 56, ClientID: client, Broker: 1}
	}
	m0, m1 := histories.ShareMemberClientID("g", "m0"), histories.ShareMemberClientID("g", "m1")
	type req struct {
		at int64
		a  histories.RequestAction
	}
	for _, tc := range []struct {
		name  string
		build func(h *hb)
		reqs  []req
		kill  bool // a broker kill between the polls too
		want  string
		named int   // request actions the entry names
		opAt  int64 // when the request fault's op was invoked (0: not fed)
	}{
		{"own ack dropped", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{65, drop(m0)}}, false, CauseRequest, 1, 0},
		{"the fault's op invoked before the delivery (p4: lock-expiry before)", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{65, drop(m0)}}, false, CauseRequest, 1, 45},
		{"the fault's op alone, invoked before", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, nil, false, causeLockExpiry, 0, 45},
		{"at the redelivery's completion", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{80, drop(m0)}}, false, CauseRequest, 1, 0},
		{"outranks a fault between", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{65, drop(m0)}}, true, CauseRequest, 1, 0},
		{"another member's request", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{65, drop(m1)}}, false, causeLockExpiry, 0, 0},
		{"before the delivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{55, drop(m0)}}, false, causeLockExpiry, 0, 0},
		{"after the redelivery", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{81, drop(m0)}}, false, causeLockExpiry, 0, 0},
		{"a release comes first", func(h *hb) {
			h.members(2)
			h.deliver(1, 1, 0, rel, ok) // poll 50-60, ack 70-80
			h.poll(2, 2, 0)             // 90-100
		}, []req{{75, drop(m0)}}, false, causeRelease, 1, 0},
		{"member death comes first", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.op(1, histories.FSharePoll, histories.Info, histories.SharePollValue{Group: "g"}, nil) // 70-80
			h.poll(2, 2, 0)                                                                          // 90-100
		}, []req{{75, drop(m0)}}, false, causeMemberDeath, 1, 0},
		{"the latest five", func(h *hb) {
			h.members(2)
			h.poll(1, 1, 0)
			h.poll(2, 2, 0)
		}, []req{{61, drop(m0)}, {62, drop(m0)}, {63, drop(m0)}, {64, drop(m0)}, {65, drop(m0)}, {66, drop(m0)}}, false, CauseRequest, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			tc.build(h)
			b := h.builder(t)
			if tc.kill {
				b.nemesis("kill", []int32{1}, 66, 67)
			}
			if tc.opAt > 0 {
				b.nemesis("drop-request", nil, tc.opAt, tc.opAt+1)
			}
			for _, r := range tc.reqs {
				b.request(r.at, r.a)
			}
			b.finish()
			r := b.check(nil)
			if len(r.ShareRedelivery) != 1 {
				t.Fatalf("redeliveries %+v, want one", r.ShareRedelivery)
			}
			e := r.ShareRedelivery[0]
			if e.Cause != tc.want || r.Stats.Causes[tc.want] != 1 {
				t.Errorf("cause %s (stats %v), want %s", e.Cause, r.Stats.Causes, tc.want)
			}
			if len(e.Requests) != tc.named {
				t.Fatalf("requests %q, want %d", e.Requests, tc.named)
			}
			if tc.named > 0 {
				last := tc.reqs[len(tc.reqs)-1]
				want := fmt.Sprintf("drop-request of ShareAcknowledge v2 (correlation id 56) from kchaos-g-m0 to broker 1 at %.3fs", secs(last.at))
				if got := e.Requests[len(e.Requests)-1]; got != want {
					t.Errorf("request named %q, want %q", got, want)
				}
			}
			if tc.kill && !slices.ContainsFunc(e.Faults, func(f string) bool { return strings.HasPrefix(f, "kill") }) {
				t.Errorf("faults %q: want the kill named too", e.Faults)
			}
			if n := counts(r); len(n) != 1 || n[Redelivery] != 1 {
				t.Errorf("counts %v: want the redelivery alone (information)", n)
			}
		})
	}
}

// TestRequestsOfRecord: a share-unknown entry names the request actions
// on its own members' requests in its window (the dropped answer to the
// ack whose outcome is unknown), not another member's.
func TestRequestsOfRecord(t *testing.T) {
	a := histories.RequestAction{Rule: 1, Action: "drop-response", API: "ShareAcknowledge", Version: 2, CorrelationID: 24, Broker: 0,
		BrokerErrors: []string{"NONE"}}
	own, other := a, a
	own.ClientID, other.ClientID = histories.ShareMemberClientID("g", "m0"), histories.ShareMemberClientID("g", "m1")
	h := &hb{}
	h.members(2)
	h.poll(1, 1, 0)                         // 50-60
	h.ack(1, 1, 0, acc, "", histories.Info) // 70-80: unknown
	h.offsets(1)                            // 90-100
	b := h.builder(t)
	b.request(75, own)
	b.request(76, other)
	b.finish()
	log := &readLog{Records: map[int32][]logRecord{0: {{Offset: 0, Value: val(0)}}}, Ends: map[int32]int64{0: 1}}
	r := b.check(log)
	if len(r.ShareUnknown) != 1 {
		t.Fatalf("share-unknown %+v, want one", r.ShareUnknown)
	}
	want := fmt.Sprintf("%s at %.3fs", own, secs(75))
	if got := r.ShareUnknown[0].Requests; len(got) != 1 || got[0] != want {
		t.Fatalf("requests %q, want [%q]", got, want)
	}
}
