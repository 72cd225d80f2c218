package workloads

import (
	"context"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// QuorumView is what the observer needs to sample the KRaft quorum;
// *admin.Client implements it. It is apart from ClusterView so that a view
// without it (a test fake) samples the partitions only.
type QuorumView interface {
	Quorum(ctx context.Context) (histories.QuorumValue, error)
}

// quorumTimeout bounds one DescribeQuorum: a broker that forwards it to a
// controller that no longer answers must not stall the partitions' sample.
const quorumTimeout = 800 * time.Millisecond

// quorumState is the observer's memory of the last quorum sample recorded.
type quorumState struct {
	last   *histories.QuorumValue
	lastAt time.Time
}

// sampleQuorum records a `quorum` event when the quorum's state changed
// since the last one recorded (leader, epoch, high watermark, a voter's or
// observer's log end offset; not the fetch timestamps, which move every
// time) or Heartbeat has passed. A failed DescribeQuorum records nothing,
// like a failed partition sample; the gap in the samples is the record of
// the quorum not answering.
func (o *Observer) sampleQuorum(ctx context.Context) {
	qv, ok := o.view.(QuorumView)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, quorumTimeout)
	defer cancel()
	q, err := qv.Quorum(ctx)
	if err != nil {
		o.failures.Add(1)
		return
	}
	now := time.Now()
	if o.quorum.last != nil && o.quorum.last.SameState(q) && now.Sub(o.quorum.lastAt) < o.opts.Heartbeat {
		return
	}
	if _, err := o.rec.Record(histories.ObserverProcess, histories.OK, histories.FQuorum, q, ""); err != nil {
		o.failures.Add(1)
		return
	}
	o.recorded.Add(1)
	o.quorum = quorumState{last: &q, lastAt: now}
}
