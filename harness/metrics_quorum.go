package harness

import (
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
)

// quorumScan measures the KRaft quorum's leadership around the first
// leader-moving fault from the observer's quorum samples: which controller
// led after it, how soon a sample first showed it, and how long after the
// fault a sample still showed the old leader answering as leader of its
// old epoch (a deposed leader resigns when a majority of voters stops
// fetching from it: KAFKA-15489).
type quorumScan struct {
	faultAt             int64 // -1: no leader-moving fault yet
	before, beforeEpoch int32 // the leader and epoch before it
	after               int32 // the first other leader after it, -1 none
	afterAt             int64
	lastOldClaim        int64 // the last sample after the fault of the old leader in its old epoch, -1 none
	samples             int
}

func newQuorumScan() quorumScan {
	return quorumScan{faultAt: -1, before: -1, beforeEpoch: -1, after: -1, lastOldClaim: -1}
}

func (q *quorumScan) fault(at int64) {
	if q.faultAt < 0 {
		q.faultAt = at
	}
}

func (q *quorumScan) sample(e histories.Event) {
	var v histories.QuorumValue
	if e.Decode(&v) != nil || v.LeaderID < 0 {
		return
	}
	q.samples++
	switch {
	case q.faultAt < 0:
		q.before, q.beforeEpoch = v.LeaderID, v.LeaderEpoch
	case v.LeaderID == q.before && v.LeaderEpoch == q.beforeEpoch:
		q.lastOldClaim = e.Time
	case q.after < 0 && v.LeaderID != q.before:
		q.after, q.afterAt = v.LeaderID, e.Time
	}
}

// metrics adds what was measured; nothing without quorum samples on both
// sides of a fault.
func (q *quorumScan) metrics(m expect.Metrics) {
	if q.samples == 0 || q.faultAt < 0 || q.before < 0 {
		return
	}
	if q.after >= 0 {
		m[expect.ControllerAfterFault] = float64(q.after)
		m[expect.NewControllerSeconds] = float64(q.afterAt-q.faultAt) / 1e9
	}
	m[expect.OldControllerClaimedSeconds] = 0
	if q.lastOldClaim > q.faultAt {
		m[expect.OldControllerClaimedSeconds] = float64(q.lastOldClaim-q.faultAt) / 1e9
	}
}
