package harness

import (
	"slices"

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

func (q *quorumScan) sample(e histories.Event, v histories.QuorumValue) {
	if v.LeaderID < 0 {
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

// voterScan measures the voter set of a reconfigured quorum from the
// quorum samples and the add-controller and remove-controller ops: its
// size at the end and at its smallest, whether a removed controller came
// back as a voter and how soon (auto-join re-adds a removed controller
// that runs: KAFKA-19850), and how many reconfiguration steps Kafka did
// not carry out.
type voterScan struct {
	samples        int
	final, least   int
	removed        int32 // the node of the first remove-controller, -1 none
	removedAt      int64
	backAt         int64 // the first sample after it with the node voting again, -1 none
	reconfigFailed int
}

func newVoterScan() voterScan { return voterScan{removed: -1, backAt: -1} }

// op follows a completed reconfiguration op.
func (s *voterScan) op(e histories.Event) {
	if e.Type != histories.OK {
		s.reconfigFailed++
		return
	}
	if e.F != histories.FRemoveController || s.removed >= 0 {
		return
	}
	var v histories.NemesisValue
	if e.Decode(&v) != nil {
		return
	}
	if id, ok := v.Details["node"].(float64); ok {
		s.removed, s.removedAt = int32(id), e.Time
	}
}

func (s *voterScan) sample(q histories.QuorumValue, at int64) {
	if q.LeaderID < 0 {
		return
	}
	n := len(q.Voters)
	if s.samples == 0 || n < s.least {
		s.least = n
	}
	s.samples++
	s.final = n
	if s.removed >= 0 && s.backAt < 0 && at > s.removedAt && slices.Contains(q.VoterIDs(), s.removed) {
		s.backAt = at
	}
}

func (s *voterScan) metrics(m expect.Metrics) {
	if s.samples > 0 {
		m[expect.FinalVoters] = float64(s.final)
		m[expect.MinVoters] = float64(s.least)
	}
	if s.backAt >= 0 {
		m[expect.RemovedVoterBackSeconds] = float64(s.backAt-s.removedAt) / 1e9
	}
	m[expect.ReconfigFailed] = float64(s.reconfigFailed)
}
