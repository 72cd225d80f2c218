package histories

// The group coordinator's state read back (extension of v1,
// docs/HISTORY.md "Consumer groups"): after the workload stopped and the
// faults were healed, kchaos asks the group's coordinator what it holds
// of the group: its committed offsets (OffsetFetch) and its description
// (DescribeGroups, or KIP-848's ConsumerGroupDescribe). The members' ops
// say what the coordinator acknowledged; this says what it kept, so that
// a commit it acknowledged and later forgot (a __consumer_offsets log
// that lost it, a coordinator whose memory and log diverged) is evidence
// in the history, not a guess.
//
// It is one op on a process of its own, like a final read: the invoke
// names the group and the topic; ok carries what the coordinator
// answered; info says it never answered (the error), and nothing is
// judged from it.

// FGroupFinal is the op name of the read-back.
const FGroupFinal = "group-final"

// GroupFinalValue is a group-final's value: the invoke's has Group and
// Topic; an ok completion's adds what the coordinator answered.
type GroupFinalValue struct {
	Group string `json:"group"`
	Topic string `json:"topic"`
	// Offsets is the committed offset of each partition of Topic that has
	// one (the next offset to read, as commit values are); a partition
	// absent has none.
	Offsets map[string]GroupFinalOffset `json:"offsets,omitempty"`
	// Errors are partitions whose offset the coordinator answered with an
	// error (not judged).
	Errors map[string]string `json:"errors,omitempty"`
	// The description: the group's type on the coordinator ("classic" or
	// "consumer"), its state (Stable, Empty, ...), its assignor, the
	// generation (KIP-848's group epoch; absent for a classic group,
	// whose DescribeGroups does not tell it) and members.
	Type          string             `json:"type,omitempty"`
	State         string             `json:"state,omitempty"`
	Protocol      string             `json:"protocol,omitempty"`
	Generation    *int32             `json:"generation,omitempty"`
	Members       []GroupFinalMember `json:"members,omitempty"`
	Coordinator   *int32             `json:"coordinator,omitempty"`
	DescribeError string             `json:"describe_error,omitempty"` // the offsets were read, the description not
	Attempts      int                `json:"attempts,omitempty"`       // OffsetFetch requests made
}

// GroupFinalOffset is one partition's committed offset read back:
// LeaderEpoch is the epoch committed with it (-1: none).
type GroupFinalOffset struct {
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Metadata    string `json:"metadata,omitempty"`
}

// GroupFinalMember is a member as the coordinator describes it.
type GroupFinalMember struct {
	MemberID   string  `json:"member_id"`
	InstanceID string  `json:"instance_id,omitempty"`
	ClientID   string  `json:"client_id,omitempty"`
	Epoch      *int32  `json:"epoch,omitempty"` // KIP-848's member epoch
	Assigned   []int32 `json:"assigned,omitempty"`
}
