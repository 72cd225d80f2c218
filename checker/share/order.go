package share

import (
	"fmt"

	"github.com/kchaos/kchaos/histories"
)

// The pair rules rest on the time order of invokes and completions, the
// only order the history holds: a delivery happened somewhere inside its
// share-poll (invoke to completion: the workload's client fetches only
// inside a poll), an ack took effect somewhere inside its share-ack. So
// of delivery A and a later acquisition B by another process, and an ack
// of A that the broker confirmed (ok):
//
//   - B's poll completed before the ack was invoked: B held the record
//     when A's member acked it (share-double-acquire), unless A's process
//     acquired it again after B before acking (it then acked a record it
//     held: legal, the broker keys an ack by member and offset);
//   - B's poll completed while an accept or reject of A was in flight:
//     either the ack took effect first, and the record was acquired again
//     after its final state, or after, and it acted on a record B held;
//   - B's poll completed after an accept or reject of A was confirmed.
//
// The last two are one violation, an accepted record delivered again
// (share-redelivered-after-accept), told apart by the entry's reason:
// one name keeps the verdict's vocabulary (and results.json's
// counted_against_validity) as it was, and every expectation that a run
// has no share-redelivered-after-accept covers the overlap too.
//
// When the order of two acquisitions is not certain (a cluster fault
// between them leaves counts without meaning, and their polls overlap),
// or a confirmation may be Kafka's answer to an ack of a record already
// final, the record is share-unknown: a verdict never rests on an order
// the history does not hold.

// pair judges delivery i and delivery j acquired after it (higher count,
// or later in time across a cluster fault).
func (b *Builder) pair(r *shares, i, j int, from int64) {
	a, c := b.dels[i], b.dels[j]
	for _, ai := range a.acks {
		k := b.acks[ai]
		if k.outcome != histories.ShareOutcomeOK {
			continue
		}
		terminal := k.status == histories.AckAccept || k.status == histories.AckReject
		switch {
		case c.ret < k.call:
			if c.proc == a.proc {
				continue // the member that holds the lock may ack it
			}
			if b.late(r, i, j, ai, from, DoubleAcquire) {
				return
			}
		case terminal && k.ret >= 0 && c.ret <= k.ret:
			if c.proc == a.proc {
				continue // cannot be: one op open per process
			}
			if b.late(r, i, j, ai, from, RedeliveredAfterAccept) {
				return
			}
		case terminal && k.ret >= 0:
			r.ShareRedeliveredAfterAccept = append(r.ShareRedeliveredAfterAccept, PairEntry{Partition: a.part, Offset: a.off, Value: a.val,
				Reason: fmt.Sprintf("p%d's %s of delivery %d was confirmed at %.3fs; p%d was delivered the record again (delivery %d) at %.3fs",
					a.proc, k.status, a.count, secs(k.ret), c.proc, c.count, secs(c.ret)),
				First: b.view(i), Second: b.view(j), Faults: b.faultsIn(from, c.ret), Requests: b.requestsIn(from, c.ret, a.member, c.member), LeaderMoved: b.leaderMoved(a.part, from, c.ret)})
			return
		}
	}
}

// late judges ack ai of delivery i, confirmed ok, against delivery j of
// another process acquired after i and before the ack was confirmed: an
// entry of kind, or share-unknown when the confirmation may prove
// nothing; it reports whether the pair is judged (false: the ack is no
// evidence, look at the next).
func (b *Builder) late(r *shares, i, j, ai int, from int64, kind string) bool {
	a, c, k := b.dels[i], b.dels[j], b.acks[ai]
	rec := fmt.Sprintf("partition %d offset %d", a.part, a.off)
	unknown := func(why string) {
		b.addUnknown(r, RecordEntry{Partition: a.part, Offset: a.off, Value: a.val,
			Reason: fmt.Sprintf("%s: p%d's (%s) %s of delivery %d, invoked at %.3fs, was confirmed at %.3fs after p%d (%s) had the record again "+
				"(delivery %d, its share-poll from %.3fs to %.3fs); but %s: whether two members held it at once is unknown",
				rec, a.proc, a.member, k.status, a.count, secs(k.call), secs(k.ret), c.proc, c.member, c.count, secs(c.call), secs(c.ret), why),
			Deliveries: []Delivery{b.view(i), b.view(j)}, Faults: b.faultsIn(from, k.ret), Requests: b.requestsIn(from, k.ret, a.member, c.member), LeaderMoved: b.leaderMoved(a.part, from, k.ret)})
	}
	settled, maybe := b.finalBefore(i, b.acks[ai])
	switch {
	case settled:
		b.finalAcks[ai] = true
		return false
	case maybe >= 0:
		m := b.acks[maybe]
		unknown(fmt.Sprintf("p%d's %s invoked at %.3fs (outcome %s) may have made the record final first, and Kafka answers an ack "+
			"of records below the share-partition start offset with no error, whoever holds them", m.proc, m.status, secs(m.call), m.outcome))
		return true
	}
	switch l, sure := b.reacquired(i, j, k.call); {
	case l >= 0 && sure:
		return false
	case l >= 0:
		d := b.dels[l]
		unknown(fmt.Sprintf("p%d was delivered it again too (delivery %d, its share-poll from %.3fs to %.3fs) across a cluster fault, "+
			"perhaps after p%d, and then held it when it acked", a.proc, d.count, secs(d.call), secs(d.ret), c.proc))
		return true
	}
	e := PairEntry{Partition: a.part, Offset: a.off, Value: a.val, First: b.view(i), Second: b.view(j), Faults: b.faultsIn(from, k.ret), Requests: b.requestsIn(from, k.ret, a.member, c.member), LeaderMoved: b.leaderMoved(a.part, from, k.ret)}
	switch kind {
	case DoubleAcquire:
		e.Reason = fmt.Sprintf("%s: p%d (%s) had the record (delivery %d) at %.3fs, before p%d's (%s) %s of delivery %d was invoked at %.3fs, "+
			"and the broker confirmed that %s at %.3fs: two members held it at once",
			rec, c.proc, c.member, c.count, secs(c.ret), a.proc, a.member, k.status, a.count, secs(k.call), k.status, secs(k.ret))
		r.ShareDoubleAcquire = append(r.ShareDoubleAcquire, e)
	default:
		e.Reason = fmt.Sprintf("%s: p%d's (%s) %s of delivery %d was in flight from %.3fs to %.3fs and confirmed, while p%d (%s) was delivered the record again "+
			"(delivery %d, its share-poll from %.3fs to %.3fs): if the %s took effect first, the record was acquired again after its final state; "+
			"if after, it acted on a record p%d held",
			rec, a.proc, a.member, k.status, a.count, secs(k.call), secs(k.ret), c.proc, c.member, c.count, secs(c.call), secs(c.ret), k.status, c.proc)
		r.ShareRedeliveredAfterAccept = append(r.ShareRedeliveredAfterAccept, e)
	}
	return true
}

// reacquired finds a delivery of i's process, other than i, completed
// before t and acquired after delivery j: its process held the record
// again when it acked at t. It returns that delivery and whether it
// certainly came after j (else only perhaps: a cluster fault between
// them and overlapping polls); -1 if none may have.
func (b *Builder) reacquired(i, j int, t int64) (l int, sure bool) {
	a := b.dels[i]
	l = -1
	for _, x := range b.byRec[recKey{a.part, a.off}] {
		d := b.dels[x]
		if x == i || d.proc != a.proc || d.ret >= t {
			continue
		}
		switch after, certain := b.after(j, x); {
		case after && certain:
			return x, true
		case !certain && l < 0:
			l = x
		}
	}
	return l, false
}

// after reports whether delivery y was acquired after delivery x, and
// whether that is certain: by count while no cluster fault overlaps
// them (counts rise with each acquisition), else by time only when one
// poll completed before the other was invoked.
func (b *Builder) after(x, y int) (after, sure bool) {
	dx, dy := b.dels[x], b.dels[y]
	if dx.count != dy.count && !b.clusterFault(min(dx.call, dy.call), max(dx.ret, dy.ret)) {
		return dy.count > dx.count, true
	}
	switch {
	case dy.call > dx.ret:
		return true, true
	case dy.ret < dx.call:
		return false, true
	}
	return false, false
}

// finalBefore reports whether another delivery of delivery i's record
// reached a final state before ack k of i was invoked: settled when an
// accept or reject of it (or a release at the delivery limit: Kafka
// archives it) was confirmed before; otherwise maybe is such an ack whose
// outcome is unknown, or that was in flight while k was, and may have
// been applied first (-1: none). A record in a final state cannot be
// acked again, yet Kafka answers an ack of records below the
// share-partition start offset with error code 0 before checking who
// holds them (SharePartition.acknowledge skips such a batch:
// SharePartition.java 1043-1046 in 4.4.0, 930-933 in 4.1.2; w1,
// docs/SCENARIOS.md). So a confirmed k after a final state is no evidence
// that i's member still held the record.
func (b *Builder) finalBefore(i int, k ack) (settled bool, maybe int) {
	maybe = -1
	d := b.dels[i]
	for _, j := range b.byRec[recKey{d.part, d.off}] {
		if j == i {
			continue
		}
		o := b.dels[j]
		for _, ai := range o.acks {
			a := b.acks[ai]
			final := a.status == histories.AckAccept || a.status == histories.AckReject ||
				a.status == histories.AckRelease && b.limit > 0 && o.count >= b.limit
			switch {
			case !final || a.outcome == histories.ShareOutcomeFail:
			case a.outcome == histories.ShareOutcomeOK && a.ret >= 0 && a.ret < k.call:
				return true, -1
			case k.ret < 0 || a.call < k.ret:
				if maybe < 0 {
					maybe = ai
				}
			}
		}
	}
	return false, maybe
}
