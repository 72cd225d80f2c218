package harness

import (
	"slices"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
)

// quorumScan measures the KRaft quorum's leadership around the first
// leader-moving fault from the observer's quorum samples: which controller
// led after it, how soon a sample first showed it, and how long after the
// fault a sample still showed the old leader answering as leader of its
// old epoch (a deposed leader resigns when a majority of voters stops
// fetching from it: KAFKA-15489).
//
// The fault counts from its invoke, not its ok: a partition's rules are in
// before its proof's probes finish (about a second), and the observer asks
// every controller directly, so the new leader's first claim can come
// before the fault's ok, beside the old leader's last. The samples are
// kept and measured at the end, so that one taken between the invoke and
// the ok is judged after the fault, never as the leader before it.
type quorumScan struct {
	invokes map[string]int64 // leader-moving fault kind -> its last invoke
	faultAt int64            // the first leader-moving fault's invoke; -1 none
	samples []quorumSample
}

type quorumSample struct {
	at int64
	q  histories.QuorumValue
}

func newQuorumScan() quorumScan { return quorumScan{invokes: map[string]int64{}, faultAt: -1} }

// invoked notes a leader-moving fault's invoke; fault takes its ok.
func (q *quorumScan) invoked(f string, at int64) { q.invokes[f] = at }

func (q *quorumScan) fault(f string, at int64) {
	if q.faultAt >= 0 {
		return
	}
	q.faultAt = at
	if inv, ok := q.invokes[f]; ok && inv <= at {
		q.faultAt = inv
	}
}

func (q *quorumScan) sample(at int64, v histories.QuorumValue) {
	if v.LeaderID >= 0 {
		q.samples = append(q.samples, quorumSample{at, v})
	}
}

// metrics adds what was measured; nothing without quorum samples on both
// sides of a fault.
func (q *quorumScan) metrics(m expect.Metrics) {
	if len(q.samples) == 0 || q.faultAt < 0 {
		return
	}
	before, beforeEpoch := int32(-1), int32(-1)
	after, afterAt, lastOldClaim := int32(-1), int64(0), int64(-1)
	deposed := false // a sample after the fault showed a newer epoch
	for _, s := range q.samples {
		v := s.q
		switch {
		case s.at < q.faultAt:
			// The newest epoch's leader before the fault (with claims from
			// every controller, a deposed one may still answer beside it).
			if v.LeaderEpoch >= beforeEpoch {
				before, beforeEpoch = v.LeaderID, v.LeaderEpoch
			}
		case before < 0:
		case v.LeaderID == before && v.LeaderEpoch == beforeEpoch:
			lastOldClaim = s.at
		default:
			deposed = deposed || v.LeaderEpoch > beforeEpoch
			if after < 0 && v.LeaderID != before && v.LeaderEpoch > beforeEpoch {
				after, afterAt = v.LeaderID, s.at
			}
		}
	}
	// A leader no sample showed deposed was not: its claims after the
	// fault are its own (a random schedule's cut of the active controller
	// from the brokers alone leaves the quorum whole: the recommended
	// campaign's q3 cell, 2026-12-06, "claimed" 23 s). How fast it
	// resigned is then no measure at all.
	if before < 0 || !deposed {
		return
	}
	if after >= 0 {
		m[expect.ControllerAfterFault] = float64(after)
		m[expect.NewControllerSeconds] = float64(afterAt-q.faultAt) / 1e9
	}
	m[expect.OldControllerClaimedSeconds] = 0
	if lastOldClaim > q.faultAt {
		m[expect.OldControllerClaimedSeconds] = float64(lastOldClaim-q.faultAt) / 1e9
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

// op follows a completed reconfiguration op (the pass's Timeline decoded
// its value).
func (s *voterScan) op(e *pass.NemEvent) {
	if e.Type != histories.OK {
		s.reconfigFailed++
		return
	}
	if e.F != histories.FRemoveController || s.removed >= 0 || e.BadValue {
		return
	}
	if id, ok := e.Value.Details["node"].(float64); ok {
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
