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

// QuorumClaims is the observer's preferred source of quorum samples:
// every controller asked directly, each answer a claim to lead stamped
// with who made it (*admin.Controllers). Without it the observer asks
// the view, through a broker.
type QuorumClaims interface {
	Claims(ctx context.Context) ([]histories.QuorumValue, error)
}

// quorumTimeout bounds one DescribeQuorum: a broker that forwards it to a
// controller that no longer answers must not stall the partitions' sample.
const quorumTimeout = 800 * time.Millisecond

// quorumState is the observer's memory of the last quorum sample
// recorded from each source (a controller's id, or 0 through a broker).
type quorumState struct {
	last   map[int32]histories.QuorumValue
	lastAt map[int32]time.Time
}

// sampleQuorum records a `quorum` event for each answer whose state
// changed since the last one recorded from the same source (leader,
// epoch, high watermark, a voter's or observer's log end offset; not the
// fetch timestamps, which move every time) or when Heartbeat has passed.
// A failed ask records nothing, like a failed partition sample; the gap
// in the samples is the record of the quorum not answering.
func (o *Observer) sampleQuorum(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, quorumTimeout)
	defer cancel()
	// Taken before the ask: a lower bound on the moment each answer
	// shows, which the checker needs to tell a state from before an
	// acknowledgement from one after it.
	asked := o.rec.Elapsed().Nanoseconds()
	var answers []histories.QuorumValue
	switch {
	case o.opts.Controllers != nil:
		claims, err := o.opts.Controllers.Claims(ctx)
		if err != nil {
			o.failures.Add(1)
			return
		}
		answers = claims
	default:
		qv, ok := o.view.(QuorumView)
		if !ok {
			return
		}
		q, err := qv.Quorum(ctx)
		if err != nil {
			o.failures.Add(1)
			return
		}
		answers = []histories.QuorumValue{q}
	}
	if o.quorum.last == nil {
		o.quorum = quorumState{last: map[int32]histories.QuorumValue{}, lastAt: map[int32]time.Time{}}
	}
	now := time.Now()
	for _, q := range answers {
		q.Asked = max(asked, 1) // 0 reads as "not recorded"
		if last, ok := o.quorum.last[q.From]; ok && last.SameState(q) && now.Sub(o.quorum.lastAt[q.From]) < o.opts.Heartbeat {
			continue
		}
		if _, err := o.rec.Record(histories.ObserverProcess, histories.OK, histories.FQuorum, q, ""); err != nil {
			o.failures.Add(1)
			return
		}
		o.recorded.Add(1)
		o.quorum.last[q.From], o.quorum.lastAt[q.From] = q, now
	}
}
