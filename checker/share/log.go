package share

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// The final read's side of the check: every record the log holds must have
// reached a final state, or been left where the drain could not reach it.

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
