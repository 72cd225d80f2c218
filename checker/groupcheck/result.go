package groupcheck

import (
	"github.com/kchaos/kchaos/checker/judge"
)

// Anomaly names of consumer groups (docs/HISTORY.md, "Consumer groups:
// what the checker proves").
const (
	LostByCommit    = "lost-by-commit"
	CommitBackwards = "commit-backwards"
	// CommitLost: the group coordinator's committed offset read back
	// (group-final) is below one it acknowledged (readback.go).
	CommitLost = "commit-lost"
	// CommitUnexplained: it holds an offset no commit of the history
	// asked for: information (readback.go).
	CommitUnexplained = "commit-unexplained"
	Redelivery        = "redelivery"
	// DeliveryOutsideAssignment: a member delivered records of a
	// partition its client did not hold (outside.go).
	DeliveryOutsideAssignment = "delivery-outside-assignment"
)

// Kinds of commit-backwards.
const (
	// ResumedBelowCommit: a member newly assigned a partition first
	// delivered an offset below one the group had committed (ok) before
	// that assignment: the group's committed offset went back.
	ResumedBelowCommit = "resumed-below-commit"
	// CommittedLower: an ok commit of a partition below an earlier ok one.
	CommittedLower = "committed-lower"
)

// Causes of a redelivery.
const (
	CauseCommitBackwards = "commit-backwards" // the new owner resumed below a committed offset
	CauseRestart         = "restart"          // the member's process was replaced
	CauseRebalance       = "rebalance"        // the partition was (re)assigned in a new generation
	CauseSameGeneration  = "same-generation"  // the same member went back within a generation (nonmonotonic-poll)
)

// CommitRef names a commit op.
type CommitRef struct {
	Index      int64   `json:"index"` // the history index of its invoke
	Process    int     `json:"process"`
	Member     string  `json:"member,omitempty"`
	MemberID   string  `json:"member_id,omitempty"`
	Generation *int32  `json:"generation,omitempty"`
	Type       string  `json:"type"`
	Error      string  `json:"error,omitempty"`
	Auto       bool    `json:"auto,omitempty"`
	InvokedS   float64 `json:"invoked_s"`
	DoneS      float64 `json:"done_s"`
	// Offset is what it committed on the entry's partition.
	Offset int64 `json:"offset"`
	// LeaderEpoch is the leader epoch it committed with the offset (-1:
	// none); absent where the history does not record it.
	LeaderEpoch *int32 `json:"leader_epoch,omitempty"`
}

// DeliveryRef names the delivery of one record by a group member's poll.
type DeliveryRef struct {
	Process    int     `json:"process"`
	Member     string  `json:"member,omitempty"`
	MemberID   string  `json:"member_id,omitempty"`
	Generation *int32  `json:"generation,omitempty"`
	Offset     int64   `json:"offset"`
	Value      string  `json:"value"`
	AtS        float64 `json:"at_s"`
}

// LostByCommitEntry is a range of records on one partition, below an
// offset the group committed (ok), that the log holds (the completed final
// read) and that no member of the group ever delivered.
type LostByCommitEntry struct {
	Group       string   `json:"group"`
	Topic       string   `json:"topic"`
	Partition   int32    `json:"partition"`
	FirstOffset int64    `json:"first_offset"`
	LastOffset  int64    `json:"last_offset"`
	Count       int      `json:"count"`
	Values      []string `json:"values"`
	// Commit is the first ok commit that covered the range.
	Commit CommitRef `json:"commit"`
	// LastDelivered is the group's last delivery on the partition below
	// the range, if any.
	LastDelivered *DeliveryRef `json:"last_delivered,omitempty"`
	// AckedAfterCommit counts records of the range whose send was acked
	// after the commit completed: written below a committed offset.
	AckedAfterCommit int    `json:"acked_after_commit,omitempty"`
	Text             string `json:"text"`
}

// CommitBackwardsEntry is the group's committed offset of a partition
// going back: by By offsets, from Committed to Resumed.
type CommitBackwardsEntry struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Kind      string `json:"kind"`
	// Committed is the highest offset committed (ok) before; Commit the
	// commit that did.
	Committed int64     `json:"committed"`
	Commit    CommitRef `json:"commit"`
	// Resumed is where the group went on from: the first offset the newly
	// assigned member delivered, or the lower commit's offset.
	Resumed int64        `json:"resumed"`
	By      int64        `json:"by"`
	Member  *DeliveryRef `json:"member,omitempty"`
	Lower   *CommitRef   `json:"lower,omitempty"`
	// Faults are the faults made between the commit's completion and the
	// going back; Requests the request faults' actions then (a commit
	// replayed by a duplicate-request, an answer withheld).
	Faults   []judge.FaultRef   `json:"faults,omitempty"`
	Requests []judge.RequestRef `json:"requests,omitempty"`
	// Causes list what the history holds that explains it.
	Causes []string `json:"causes,omitempty"`
	Text   string   `json:"text"`
}

// RedeliveryEntry is a range of records on one partition that the group
// delivered again: first by First, again by Again.
type RedeliveryEntry struct {
	Group       string      `json:"group"`
	Topic       string      `json:"topic"`
	Partition   int32       `json:"partition"`
	FirstOffset int64       `json:"first_offset"`
	LastOffset  int64       `json:"last_offset"`
	Count       int         `json:"count"`
	First       DeliveryRef `json:"first"`
	Again       DeliveryRef `json:"again"`
	Cause       string      `json:"cause"`
	Text        string      `json:"text"`
}

// RebalanceRef names a rebalance a member process learned.
type RebalanceRef struct {
	Index      int64   `json:"index"` // the history index of its ok
	Process    int     `json:"process"`
	Generation *int32  `json:"generation,omitempty"`
	AtS        float64 `json:"at_s"`
	// Kind is how it took the entry's partition: revoked or lost.
	Kind string `json:"kind"`
}

// OutsideAssignmentEntry is a run of records of one partition that one
// member's poll delivered while its client did not hold the partition
// (histories.Holdings): a zombie consumer's reads.
type OutsideAssignmentEntry struct {
	Group       string   `json:"group"`
	Topic       string   `json:"topic"`
	Partition   int32    `json:"partition"`
	Process     int      `json:"process"`
	Member      string   `json:"member,omitempty"`
	MemberID    string   `json:"member_id,omitempty"`
	Generation  *int32   `json:"generation,omitempty"` // the poll's
	AtS         float64  `json:"at_s"`                 // the poll's completion
	FirstOffset int64    `json:"first_offset"`
	LastOffset  int64    `json:"last_offset"`
	Count       int      `json:"count"`
	Offsets     []int64  `json:"offsets"`
	Values      []string `json:"values"`
	// Held is what the client held when it polled.
	Held []string `json:"held,omitempty"`
	// TakenBy is the last rebalance of the client that revoked or lost
	// the partition before the poll; absent: none had assigned it since.
	TakenBy *RebalanceRef `json:"taken_by,omitempty"`
	// HeldBy names the live member processes that held it then.
	HeldBy []string `json:"held_by,omitempty"`
	// Faults are those made since the client's last rebalance (or its
	// subscribe) up to the poll's completion, the last 5; Requests the
	// request faults' actions then, the last 5.
	Faults   []judge.FaultRef   `json:"faults,omitempty"`
	Requests []judge.RequestRef `json:"requests,omitempty"`
	Text     string             `json:"text"`
}

// GroupStats describes the consumer groups of a run.
type GroupStats struct {
	Groups     int `json:"groups"`
	Members    int `json:"members"`   // distinct member names
	Processes  int `json:"processes"` // member processes (a restart is a new one)
	Rebalances int `json:"rebalances"`
	// Commits counts commit ops by outcome, and "auto" those the client
	// made by itself.
	Commits      map[string]int `json:"commits,omitempty"`
	Delivered    int            `json:"delivered"`
	Redelivered  int            `json:"redelivered"`
	LostByCommit int            `json:"lost_by_commit"`
	// UnassignedS is, per partition, the seconds from its first
	// assignment to the group's last op during which no live member held it.
	UnassignedS map[string]float64 `json:"unassigned_s,omitempty"`
	// ReadBack is what the group coordinator held at the end of the run
	// (group-final ops, readback_stats.go); absent without one.
	ReadBack []ReadBackStats `json:"read_back,omitempty"`
}
