package share

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// Anomaly names (docs/HISTORY.md).
const (
	Lost                   = "share-lost"
	DoubleAcquire          = "share-double-acquire"
	RedeliveredAfterAccept = "share-redelivered-after-accept"
	DeliveryCount          = "share-delivery-count"
	Redelivery             = "share-redelivery"
	Unknown                = "share-unknown"
)

// Redelivery causes (RedeliveryEntry.Cause).
const (
	causeRelease     = "release"      // the member released it (ack confirmed)
	causeAckRefused  = "ack-refused"  // the broker refused the member's ack: it no longer held the lock
	causeMemberDeath = "member-death" // the member's client ended before acking
	causeFault       = "fault"        // a nemesis op (broker kill, coordinator failover, ...) came between
	causeLeaderMoved = "leader-moved" // no nemesis op, but the observer saw the partition's leader move (leaders.go)
	causeLockExpiry  = "lock-expiry"  // none of those: the lock ran out
	// CauseRequest: a request fault's action on the delivering member's
	// own requests (a ShareAcknowledge dropped on the way there or back,
	// a heartbeat's answer withheld, ...) came between the delivery and
	// the redelivery. The request event (histories.FRequest) names it,
	// where the request fault's op, often invoked before the delivery
	// (its rule waits for the request), cannot. It outranks CauseFault:
	// an op that came between is circumstance, an action on this
	// member's requests is what happened to them (requests.go).
	CauseRequest = "request-fault"
)

// readLog is what the completed final read holds of the share group's topic:
// per partition, its records in offset order, and the offset it read up to.
type readLog struct {
	Records map[int32][]logRecord
	Ends    map[int32]int64
}

// logRecord is one record of the log.
type logRecord struct {
	Offset int64
	Value  string
}

// Delivery is one delivery as an entry shows it.
type Delivery struct {
	Process       int     `json:"process"`
	Member        string  `json:"member"`
	DeliveryCount int32   `json:"delivery_count"`
	DeliveredS    float64 `json:"delivered_s"`
	Acks          []Ack   `json:"acks,omitempty"`
}

// Ack is one acknowledgement of a delivery.
type Ack struct {
	Status   string   `json:"status"`
	Outcome  string   `json:"outcome"`
	Error    string   `json:"error,omitempty"`
	InvokedS float64  `json:"invoked_s"`
	DoneS    *float64 `json:"done_s,omitempty"`
	// Wire is the broker's answer to the request that carried the ack,
	// as the member's connection read it (histories.ShareAckWire).
	Wire *histories.ShareAckWire `json:"wire,omitempty"`
}

// RecordEntry is a record that never reached a final state (share-lost)
// or whose fate is unknown (share-unknown).
type RecordEntry struct {
	Partition   int32      `json:"partition"`
	Offset      int64      `json:"offset"`
	Value       string     `json:"value"`
	Reason      string     `json:"reason"`
	StartOffset *int64     `json:"start_offset,omitempty"`
	Deliveries  []Delivery `json:"deliveries,omitempty"`
	Faults      []string   `json:"faults,omitempty"`
	// Requests are the request faults' actions in the same window.
	Requests []string `json:"requests,omitempty"`
	// LeaderMoved is the leader move of the record's partition the
	// observer saw in the entry's window (leaders.go), if any.
	LeaderMoved string `json:"leader_moved,omitempty"`
}

// PairEntry is two deliveries of one record that cannot both be right
// (share-double-acquire, share-redelivered-after-accept).
type PairEntry struct {
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	Value     string   `json:"value"`
	Reason    string   `json:"reason"`
	First     Delivery `json:"first"`
	Second    Delivery `json:"second"`
	Faults    []string `json:"faults,omitempty"`
	Requests  []string `json:"requests,omitempty"` // the request faults' actions in the same window
	// LeaderMoved is the leader move of the record's partition the
	// observer saw in the entry's window (leaders.go), if any.
	LeaderMoved string `json:"leader_moved,omitempty"`
}

// CountEntry is a delivery whose count is impossible (share-delivery-count).
type CountEntry struct {
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	Value     string   `json:"value"`
	Reason    string   `json:"reason"`
	Delivery  Delivery `json:"delivery"`
	Limit     int32    `json:"limit"`
}

// RedeliveryEntry is a record delivered again, with why (information).
// Unseen is how many acquisitions between the two the members never saw
// (their counts skip): a client releases what it cannot hand out, and a
// killed member's fetched records expire unseen.
type RedeliveryEntry struct {
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	Value     string   `json:"value"`
	Cause     string   `json:"cause"`
	From      Delivery `json:"from"`
	To        Delivery `json:"to"`
	Unseen    int32    `json:"unseen,omitempty"`
	Faults    []string `json:"faults,omitempty"`
	// Requests are the request faults' actions on the From member's own
	// requests between the two deliveries (cause request-fault).
	Requests []string `json:"requests,omitempty"`
	// LeaderMoved is the leader move of the record's partition the
	// observer saw in the entry's window (leaders.go), if any.
	LeaderMoved string `json:"leader_moved,omitempty"`
}

// Stats counts what the share ops did (results.json's stats.shares,
// docs/HISTORY.md "Share groups: what the checker proves"): deliveries,
// distinct records delivered, acks by status and outcome ("accept ok"),
// redeliveries by cause, and the confirmed acks set aside as no evidence.
type Stats struct {
	Deliveries int            `json:"deliveries"`
	Records    int            `json:"records"` // distinct records delivered
	Acks       map[string]int `json:"acks,omitempty"`
	Causes     map[string]int `json:"redeliveries_by_cause,omitempty"`
	// AcksOfFinal counts acks confirmed ok though they were invoked after
	// another delivery's confirmed accept or reject had made the record
	// final: Kafka answers those with no error without applying them or
	// checking who holds the record (finalBefore), so they prove nothing.
	AcksOfFinal int `json:"acks_of_final_records"`
}

// shares is what Check found: the share anomalies (ShareAnomalies), the
// counts of what the share ops did, and why records could not be judged.
type shares struct {
	ShareAnomalies
	Stats Stats
	// Unjudged says why records could not be judged at all ("": they were).
	Unjudged string
}

func secs(t int64) float64 { return float64(t) / 1e9 }

func (b *Builder) view(i int) Delivery {
	d := b.dels[i]
	out := Delivery{Process: d.proc, Member: d.member, DeliveryCount: d.count, DeliveredS: secs(d.ret)}
	for _, ai := range d.acks {
		a := b.acks[ai]
		v := Ack{Status: a.status, Outcome: a.outcome, Error: a.err, InvokedS: secs(a.call), Wire: a.wire}
		if a.ret >= 0 {
			s := secs(a.ret)
			v.DoneS = &s
		}
		out.Acks = append(out.Acks, v)
	}
	return out
}

// faultsIn names the nemesis ops invoked in [from, to].
func (b *Builder) faultsIn(from, to int64) []string {
	var out []string
	for _, f := range b.faults {
		if f.call >= from && f.call <= to {
			out = append(out, fmt.Sprintf("%s %v at %.3fs", f.f, f.nodes, secs(f.call)))
		}
	}
	return out
}

// check judges the share ops added so far against log (nil: no completed
// final read of the topic). Call Finish first.
func (b *Builder) check(log *readLog) *shares {
	r := &shares{Stats: Stats{Deliveries: len(b.dels), Records: len(b.byRec), Acks: map[string]int{}, Causes: map[string]int{}}}
	b.finalAcks = map[int]bool{}
	for _, a := range b.acks {
		r.Stats.Acks[a.status+" "+a.outcome]++
	}
	keys := slices.SortedFunc(maps.Keys(b.byRec), func(x, y recKey) int {
		return cmp.Or(cmp.Compare(x.part, y.part), cmp.Compare(x.off, y.off))
	})
	for _, k := range keys {
		b.checkRecord(r, b.byRec[k])
	}
	b.checkLog(r, log)
	r.Stats.AcksOfFinal = len(b.finalAcks)
	return r
}

// okAck returns the first ack of delivery i confirmed ok with one of the
// statuses (any, if none given), or -1.
func (b *Builder) okAck(i int, statuses ...string) int {
	for _, ai := range b.dels[i].acks {
		a := b.acks[ai]
		if a.outcome == histories.ShareOutcomeOK && (len(statuses) == 0 || slices.Contains(statuses, a.status)) {
			return ai
		}
	}
	return -1
}

// checkRecord judges the deliveries of one record, in completion order.
//
// Counts rise with each acquisition, so a delivery with a higher count
// was acquired after one with a lower count. Then, for a delivery A and a
// later-acquired delivery B of the same record by another process
// (pair, order.go, by the time order of A's confirmed acks and B's poll):
//   - B completed before A's ack was invoked, and the broker confirmed
//     that ack: the broker let A act on a record B already held (double
//     acquire), whatever the lock's timing; unless A's process acquired
//     it again after B (it acked a record it held), or the record was
//     final before A's ack was sent (finalBefore: Kafka answers an ack
//     below the share-partition start offset with no error, whoever
//     sends it), or may have been (share-unknown);
//   - B completed while A's accept or reject was in flight, and it was
//     confirmed: a violation in either order (ack overlaps redelivery);
//   - B completed after A's accept or reject was confirmed: the record was
//     acquired again after its final state (or, if B acquired it before
//     the accept took effect, while A held it): either way an accepted
//     record was delivered again.
//
// None needs to know when a client fetched what it hands out.
//
// Counts rise with acquisitions only while the share-partition's leader
// and its persisted state last. KIP-932 does not persist an acquisition
// ("the Acquired state is not recorded because it's transient ... In the
// unlikely event of a share-partition leader crash, memory of the
// in-flight delivery will be lost"), so after a leader change a record
// comes back at the count of its last persisted state (w4, 4.4.0: 12
// records at their first delivery's count after the leader's power cut;
// w3: after move-leader), and after state is lost (w3's unclean election
// of __share_group_state, 4.3.1) at a lower count than before. So when a
// cluster fault overlaps two deliveries, they are ordered by time, not
// count, and judged by the same two rules: a double acquire only on a
// confirmed ack of the earlier one invoked after the later one, a
// redelivery after accept on a confirmed accept of the earlier one.
func (b *Builder) checkRecord(r *shares, ds []int) {
	first := b.dels[ds[0]]
	for _, i := range ds {
		d := b.dels[i]
		switch {
		case d.count < 1:
			r.ShareDeliveryCount = append(r.ShareDeliveryCount, CountEntry{Partition: d.part, Offset: d.off, Value: d.val,
				Reason: fmt.Sprintf("delivery count %d: a delivered record's count is at least 1", d.count), Delivery: b.view(i), Limit: b.limit})
		case b.limit > 0 && d.count > b.limit:
			r.ShareDeliveryCount = append(r.ShareDeliveryCount, CountEntry{Partition: d.part, Offset: d.off, Value: d.val,
				Reason:   fmt.Sprintf("delivery count %d exceeds group.share.delivery.count.limit %d: the record should have been archived", d.count, b.limit),
				Delivery: b.view(i), Limit: b.limit})
		}
	}
	for x, i := range ds {
		for _, j := range ds[x+1:] {
			a, c := b.dels[i], b.dels[j]
			if b.leaderMayHaveChanged(i, j) {
				b.pair(r, i, j, first.call) // ds is in completion order
				continue
			}
			if a.count == c.count {
				r.ShareDoubleAcquire = append(r.ShareDoubleAcquire, PairEntry{Partition: a.part, Offset: a.off, Value: a.val,
					Reason: fmt.Sprintf("delivered twice with delivery count %d: one acquisition handed to two deliveries", a.count),
					First:  b.view(i), Second: b.view(j), Faults: b.faultsIn(first.call, c.ret), Requests: b.requestsIn(first.call, c.ret, a.member, c.member)})
				continue
			}
			if a.count > c.count {
				a, c, i, j = c, a, j, i
			}
			b.pair(r, i, j, first.call)
		}
	}
	b.redeliveries(r, ds)
}

// addUnknown adds a share-unknown entry, one per record.
func (b *Builder) addUnknown(r *shares, e RecordEntry) {
	for _, u := range r.ShareUnknown {
		if u.Partition == e.Partition && u.Offset == e.Offset {
			return
		}
	}
	r.ShareUnknown = append(r.ShareUnknown, e)
}

// redeliveries lists each delivery after the first with its cause, in
// completion order, which is count order while no fault intervenes
// (information). A cause respects time: a release or a refused ack
// counts only if invoked before the redelivery's poll completed
// (causedBy), a member's death only if its process ended by then, a
// request fault's action only if it acted on the member's own client
// between the delivery and the redelivery.
func (b *Builder) redeliveries(r *shares, ds []int) {
	for x := 1; x < len(ds); x++ {
		i, j := ds[x-1], ds[x]
		a, c := b.dels[i], b.dels[j]
		if a.count == c.count && !b.leaderMayHaveChanged(i, j) {
			continue // a double acquire, not a redelivery
		}
		cause := causeLockExpiry
		faults := b.faultsIn(a.ret, c.ret)
		moved := b.leaderMoved(a.part, a.call, c.ret)
		reqs := b.requestsIn(a.ret, c.ret, a.member)
		end, ended := b.endedAt[a.proc]
		switch {
		case b.causedBy(i, c.ret, func(a ack) bool {
			return a.status == histories.AckRelease && a.outcome == histories.ShareOutcomeOK
		}):
			cause = causeRelease
		case b.causedBy(i, c.ret, func(a ack) bool { return a.outcome == histories.ShareOutcomeFail }):
			cause = causeAckRefused
		case ended && end <= c.ret:
			cause = causeMemberDeath
		case len(reqs) > 0:
			cause = CauseRequest
		case len(faults) > 0:
			cause = causeFault
		case moved != "":
			cause = causeLeaderMoved
		}
		r.Stats.Causes[cause]++
		r.ShareRedelivery = append(r.ShareRedelivery, RedeliveryEntry{Partition: a.part, Offset: a.off, Value: a.val, Cause: cause,
			From: b.view(i), To: b.view(j), Unseen: max(0, c.count-a.count-1), Faults: faults, Requests: reqs, LeaderMoved: moved})
	}
}

// leaderMayHaveChanged reports whether a cluster fault overlapped
// delivery i (from its poll's invoke) and the later delivery j, or the
// observer saw the partition's leader move between them (leaders.go):
// the share-partition's leader or its persisted state may have changed,
// and with it the memory of i's acquisition. Member and producer faults
// act on clients and do not count.
func (b *Builder) leaderMayHaveChanged(i, j int) bool {
	a, c := b.dels[i], b.dels[j]
	return b.clusterFault(a.call, c.ret) || b.leaderMoved(a.part, a.call, c.ret) != ""
}

// clusterFault reports whether a cluster fault (not a member's or a
// producer's) acted within [from, to]: invoked by to, and held (a lasting
// fault until it was ended, heldUntil) to from or later.
func (b *Builder) clusterFault(from, to int64) bool {
	for _, f := range b.faults {
		if histories.OnClients(f.f) {
			continue
		}
		if f.call <= to && (f.held < 0 || f.held >= from) {
			return true
		}
	}
	return false
}

// causedBy reports whether an ack of delivery i that is may have caused
// a redelivery whose poll completed at t: it was invoked before t, so it
// may have taken effect before the record was acquired again. One
// invoked at or after t cannot have (its confirmation, whenever it came,
// is no cause); requiring it confirmed before t would misname a release
// answered while the next member's poll waited, the common case.
func (b *Builder) causedBy(i int, t int64, is func(ack) bool) bool {
	for _, ai := range b.dels[i].acks {
		if a := b.acks[ai]; a.call < t && is(a) {
			return true
		}
	}
	return false
}

// final reports whether one of deliveries ds reached a confirmed final
// state: an accept or reject confirmed ok, or a release confirmed at the
// delivery limit (Kafka archives it).
func (b *Builder) final(ds []int) bool {
	for _, i := range ds {
		if b.okAck(i, histories.AckAccept, histories.AckReject) >= 0 {
			return true
		}
		if b.limit > 0 && b.dels[i].count >= b.limit && b.okAck(i, histories.AckRelease) >= 0 {
			return true
		}
	}
	return false
}

// unsure reports whether a terminal ack of one of ds has an unknown outcome.
func (b *Builder) unsure(ds []int) bool {
	for _, i := range ds {
		for _, ai := range b.dels[i].acks {
			if a := b.acks[ai]; a.status != histories.AckRenew && a.outcome == histories.ShareOutcomeInfo {
				return true
			}
		}
	}
	return false
}
