package share

import (
	"fmt"
	"time"

	"github.com/kchaos/kchaos/checker/model"
)

// A share-partition's in-memory state (its acquisitions) lives on the
// partition's leader; KIP-932 persists acks and releases, not
// acquisitions, so a new leader, or the same broker leading again in a
// new epoch, loads the persisted state and hands a record out again at
// the count it last persisted. Faults are one cause of a leader change
// (clusterFault); Kafka moves leaders on its own too: the controller's
// preferred-leader election (auto.leader.rebalance.enable) gives a
// partition back to its first replica once that replica is in the ISR
// again, with no fault in the window (w2 in the recommended campaign on
// 4.4.0, 2026-12-06: partition 0 moved from broker 2, epoch 2, to broker
// 0, epoch 3, 4 s after the last heal; 22 records delivered again at
// count 1, their first deliveries' acks answered
// UNKNOWN_TOPIC_OR_PARTITION by the old leader). The observer's samples
// say so, and leaderMoved reads them.

// observerLag is how long after a leader moved the observer may first
// record it: its 250 ms sampling (docs/HISTORY.md) and the asked broker's
// metadata catching up with the controller's. A move the observer
// records up to observerLag after a window's end may have happened in it.
const observerLag = time.Second

// observe gives the Builder the observer's samples of partition p of its
// topic (model.TP.Obs: kept when something but the high watermark
// changed), in time order.
func (b *Builder) observe(p int32, obs []model.Sample) {
	if b.leaders == nil {
		b.leaders = map[int32][]model.Sample{}
	}
	b.leaders[p] = obs
}

// leaderMoved reports the first leader change of partition p that the
// observer recorded within [from, to+observerLag] against the leader it
// last recorded at or before from ("" if none): a sample with another
// leader or another epoch. Without a sample at or before from, the first
// sample in the window is the reference. A partition without samples (a
// history without an observer) reports none: only faults say then.
func (b *Builder) leaderMoved(p int32, from, to int64) string {
	ss := b.leaders[p]
	var ref *model.Sample
	for k := range ss {
		s := &ss[k]
		switch {
		case s.At <= from:
			ref = s
			continue
		case s.At > to+int64(observerLag):
			return ""
		case ref == nil:
			ref = s
			continue
		}
		if s.Leader != ref.Leader || s.Epoch != ref.Epoch {
			return fmt.Sprintf("partition %d's leader went from %s (epoch %d, seen at %.3fs) to %s (epoch %d, seen at %.3fs)",
				p, node(ref.Leader), ref.Epoch, secs(ref.At), node(s.Leader), s.Epoch, secs(s.At))
		}
	}
	return ""
}

// node names a leader id (-1: none).
func node(id int32) string {
	if id < 0 {
		return "none"
	}
	return fmt.Sprintf("broker %d", id)
}
