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
		}
		r.Stats.Causes[cause]++
		r.ShareRedelivery = append(r.ShareRedelivery, RedeliveryEntry{Partition: a.part, Offset: a.off, Value: a.val, Cause: cause,
			From: b.view(i), To: b.view(j), Unseen: max(0, c.count-a.count-1), Faults: faults, Requests: reqs})
	}
}

// leaderMayHaveChanged reports whether a cluster fault overlapped
// delivery i (from its poll's invoke) and the later delivery j: the
// share-partition's leader or its persisted state may have changed, and
// with it the memory of i's acquisition. Member and producer faults act
// on clients and do not count.
func (b *Builder) leaderMayHaveChanged(i, j int) bool {
	return b.clusterFault(b.dels[i].call, b.dels[j].ret)
}

// clusterFault reports whether a cluster fault (not a member's or a
// producer's) overlapped [from, to].
func (b *Builder) clusterFault(from, to int64) bool {
	for _, f := range b.faults {
		if histories.OnClients(f.f) {
			continue
		}
		if f.call <= to && (f.ret < 0 || f.ret >= from) {
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

// checkLog judges every record the final read holds, below its end: it
// must have reached a final state the members saw confirmed (an accept or
// reject, or a release at the delivery limit), or be archived at the
// limit. A record the share-partition start offset passed without one is
// share-lost, as is one no member was ever delivered by the end of the
// drain; one whose fate rests on an ack of unknown outcome, or that the
// drain left in flight, is share-unknown.
func (b *Builder) checkLog(r *shares, log *readLog) {
	if !b.used() {
		return
	}
	switch {
	case log == nil:
		r.Unjudged = "no completed final read of the share group's topic: no record could be judged lost"
		return
	case b.offsets == nil:
		r.Unjudged = "no completed share-offsets: the group's start offsets are unknown, no record could be judged lost"
		return
	}
	tails, polledLate := b.partTails(), b.polledLastLock()
	for _, p := range slices.Sorted(maps.Keys(log.Records)) {
		end, hasEnd := log.Ends[p]
		spso, hasSPSO := b.offsets.StartOffsets[histories.PartitionKey(p)]
		for _, rec := range log.Records[p] {
			if hasEnd && rec.Offset >= end {
				break
			}
			ds := b.byRec[recKey{p, rec.Offset}]
			if b.final(ds) {
				continue
			}
			e := RecordEntry{Partition: p, Offset: rec.Offset, Value: rec.Value}
			if hasSPSO {
				e.StartOffset = &spso
			}
			maxCount := int32(0)
			for _, i := range ds {
				e.Deliveries = append(e.Deliveries, b.view(i))
				maxCount = max(maxCount, b.dels[i].count)
			}
			if len(ds) > 0 {
				e.Faults = b.faultsIn(b.dels[ds[0]].call, b.offAt)
				e.Requests = b.requestsIn(b.dels[ds[0]].call, b.offAt, b.membersOf(ds)...)
			}
			switch {
			case b.limit > 0 && maxCount >= b.limit:
				continue // archived at the delivery limit
			case b.unsure(ds):
				e.Reason = "an ack of unknown outcome may have accepted or rejected it"
				b.addUnknown(r, e)
			case hasSPSO && rec.Offset < spso:
				e.Reason = fmt.Sprintf("the share-partition start offset %d passed it, yet no accept or reject of it was confirmed "+
					"and it was delivered %d times, below the limit %d", spso, maxCount, b.limit)
				r.ShareLost = append(r.ShareLost, e)
			case !hasSPSO:
				e.Reason = "the group reported no start offset for its partition"
				r.ShareUnknown = append(r.ShareUnknown, e)
			case len(ds) == 0:
				if why := b.skipped(tails, polledLate, p, rec.Offset); why != "" {
					e.Reason = fmt.Sprintf("never delivered to any member by the end of the drain (start offset %d), %s", spso, why)
					r.ShareLost = append(r.ShareLost, e)
					break
				}
				e.Reason = fmt.Sprintf("not delivered yet when the drain ended (start offset %d): no record after it was delivered "+
					"either, and the members were still being delivered records of the partition within a record lock of the drain's end", spso)
				r.ShareUnknown = append(r.ShareUnknown, e)
			default:
				e.Reason = fmt.Sprintf("still in flight when the drain ended (at or past the start offset %d)", spso)
				r.ShareUnknown = append(r.ShareUnknown, e)
			}
		}
	}
}

// skipped says why a record of partition p at offset off, at or past the
// start offset and never delivered, is lost rather than not reached yet
// ("" when it may not have been reached). A share group hands records out
// in offset order from its start offset, so a member slower than the
// producers leaves the log's tail undelivered when the drain's bound
// passes (k20330 with 4 s of processing, 2026-12-06: 1,172 records, the
// member delivered 50 a poll to the end): that is no loss. It is one when
// a record after it was delivered (Kafka went past it), or when the
// members polled through a whole record lock before the drain's end and
// were delivered nothing of the partition (no acquisition could still
// hold it: Kafka had stopped handing it out). tails holds each
// partition's furthest and last deliveries (partTails), polledLastLock
// whether a poll completed in that last lock (polledLastLock).
func (b *Builder) skipped(tails map[int32]partTail, polledLastLock bool, p int32, off int64) string {
	t, ok := tails[p]
	if ok && t.furthest.off > off {
		return fmt.Sprintf("though offset %d after it was delivered (to %s at %.1f s)", t.furthest.off, t.furthest.member, float64(t.furthest.ret)/1e9)
	}
	last := int64(-1)
	if ok {
		last = t.last
	}
	if b.lockMS <= 0 || b.offAt-last < b.lockMS*1e6 || !polledLastLock {
		return ""
	}
	return fmt.Sprintf("while the members polled through the drain's last record lock (%d ms) and were delivered nothing of the partition", b.lockMS)
}

// polledLastLock reports whether some share-poll completed within the
// record lock before the drain's end (skipped), once per check.
func (b *Builder) polledLastLock() bool {
	from := b.offAt - b.lockMS*1e6
	return slices.ContainsFunc(b.pollsAt, func(at int64) bool { return at >= from && at <= b.offAt })
}

// partTail is a partition's delivery at the highest offset and the
// completion of its last delivering poll.
type partTail struct {
	furthest *delivery
	last     int64
}

// partTails indexes the deliveries for skipped, once per check.
func (b *Builder) partTails() map[int32]partTail {
	tails := map[int32]partTail{}
	for i := range b.dels {
		d := &b.dels[i]
		t, ok := tails[d.part]
		if !ok || d.off > t.furthest.off {
			t.furthest = d
		}
		t.last = max(t.last, d.ret)
		tails[d.part] = t
	}
	return tails
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
