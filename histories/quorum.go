package histories

// FQuorum is the observer's sample of the KRaft controller quorum (process
// -2, type ok, no invoke), beside its per-partition observe samples. It
// is an extension: a reader that knows only observe skips it (its value
// has no topic).
const FQuorum = "quorum"

// QuorumValue is one sample of the KRaft quorum of __cluster_metadata-0
// as DescribeQuorum answered it (KIP-595, KIP-853). Only a controller that
// believes it leads answers with the quorum's state, so every sample is
// one controller's claim to lead: two samples naming different leaders in
// one epoch are two controllers each claiming it. The observer asks each
// controller directly (From names the one that answered); a sample
// without From came through a broker, which forwarded the request to the
// controller it had cached as active (histories written before From).
type QuorumValue struct {
	// From is the controller that answered, 0 when the request went
	// through a broker (then the answer is the forwarded-to controller's).
	From int32 `json:"from,omitempty"`
	// Asked is when the observer sent the DescribeQuorum, in the history's
	// clock (ns since the start, as an event's time): the answer is the
	// controller's state at some moment between Asked and the event's
	// time, so only a sample asked after an acknowledgement can judge it.
	// 0 when not recorded (histories before 2026-12-06): a reader then
	// bounds the ask by the previous sample from the same source, which
	// the observer recorded before it asked again.
	Asked int64 `json:"asked,omitempty"`
	// LeaderID is the active controller, -1 when the answer named none.
	LeaderID    int32 `json:"leader_id"`
	LeaderEpoch int32 `json:"leader_epoch"`
	// HighWatermark is the quorum's committed metadata offset.
	HighWatermark int64           `json:"high_watermark"`
	Voters        []QuorumReplica `json:"voters"`
	// Observers are the nodes that fetch the metadata log without voting:
	// the brokers, and controllers that are not (or not yet) voters.
	Observers []QuorumReplica `json:"observers"`
}

// QuorumReplica is one voter's or observer's replication state, as the
// leader knows it. LogEndOffset is -1 when the leader does not know it;
// Lag is the leader's log end offset minus this one's (-1 when either is
// unknown), the figure kafka-metadata-quorum.sh prints. The timestamps
// are the leader's clock in ms since the epoch, -1 unknown.
type QuorumReplica struct {
	ID             int32 `json:"id"`
	LogEndOffset   int64 `json:"log_end_offset"`
	Lag            int64 `json:"lag"`
	LastFetchMS    int64 `json:"last_fetch_ms"`
	LastCaughtUpMS int64 `json:"last_caught_up_ms"`
}

// SameState reports whether two samples say the same thing, ignoring the
// fetch timestamps, which move on every sample of a healthy quorum: the
// observer records a sample when its state changed (or on a heartbeat).
func (q QuorumValue) SameState(o QuorumValue) bool {
	same := func(a, b []QuorumReplica) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].LogEndOffset != b[i].LogEndOffset || a[i].Lag != b[i].Lag {
				return false
			}
		}
		return true
	}
	return q.From == o.From && q.LeaderID == o.LeaderID && q.LeaderEpoch == o.LeaderEpoch && q.HighWatermark == o.HighWatermark &&
		same(q.Voters, o.Voters) && same(q.Observers, o.Observers)
}

// VoterIDs returns the voters' ids in the sample's order.
func (q QuorumValue) VoterIDs() []int32 {
	out := make([]int32, len(q.Voters))
	for i, v := range q.Voters {
		out[i] = v.ID
	}
	return out
}

// ObserverIDs returns the observers' ids in the sample's order.
func (q QuorumValue) ObserverIDs() []int32 {
	out := make([]int32, len(q.Observers))
	for i, v := range q.Observers {
		out[i] = v.ID
	}
	return out
}
