package logorder

import (
	"github.com/kchaos/kchaos/checker/judge"
)

// Anomaly names, as HISTORY.md fixes them.
const (
	LostWrite        = "lost-write"
	OffsetReuse      = "offset-reuse"
	Duplicate        = "duplicate"
	AbortedRead      = "aborted-read"
	Unexpected       = "unexpected"
	NonmonotonicSend = "nonmonotonic-send"
	PollSkip         = "poll-skip"
	NonmonotonicPoll = "nonmonotonic-poll"
	Unseen           = "unseen"
)

// LostWriteEntry is one acked send whose value the final read lacks.
type LostWriteEntry struct {
	Topic     string      `json:"topic"`
	Partition int32       `json:"partition"`
	Offset    int64       `json:"offset"`
	Value     string      `json:"value"`
	Process   int         `json:"process"`
	InvokedS  float64     `json:"invoked_s"`
	AckedS    float64     `json:"acked_s"`
	AtAck     judge.Where `json:"at_ack"`
	// Now is what the final read holds at that offset, if anything.
	Now *judge.Held `json:"now,omitempty"`
	// Range is the index of the explanation that covers this send.
	Range          int              `json:"range"`
	NewLeader      *int32           `json:"new_leader,omitempty"`
	NewLeaderEpoch *int32           `json:"new_leader_epoch,omitempty"`
	Faults         []judge.FaultRef `json:"faults,omitempty"`
	// Requests are the request faults' actions in the faults' window.
	Requests []judge.RequestRef `json:"requests,omitempty"`
	// A send never acked with an offset is lost when a read saw its value
	// and a later completed final read lacks it (what a reader saw was
	// written): Outcome is how the send ended (info, fail, or ok without
	// offset), SeenS and SeenBy the first read that saw it (acked_s is 0
	// and offset is where that read saw it).
	Outcome string   `json:"outcome,omitempty"`
	SeenS   *float64 `json:"seen_s,omitempty"`
	SeenBy  string   `json:"seen_by,omitempty"`
	// JudgedBy is the completed final read that lacks the value, when it
	// is not the partition's last one (every completed final read is
	// evidence).
	JudgedBy *judge.FinalReadRef `json:"judged_by,omitempty"`
}

// OffsetReuseEntry is one offset that held different values.
type OffsetReuseEntry struct {
	Topic     string     `json:"topic"`
	Partition int32      `json:"partition"`
	Offset    int64      `json:"offset"`
	Values    []Observed `json:"values"`
	Range     int        `json:"range"`
	// Faults are the faults made between the first value's first sighting
	// and the last value's (the explanation's faults_after).
	Faults []judge.FaultRef `json:"faults,omitempty"`
	// Requests are the request faults' actions in the same window.
	Requests []judge.RequestRef `json:"requests,omitempty"`
}

// Observed is one value at a reused offset and who saw it there.
type Observed struct {
	Value        string   `json:"value"`
	FirstS       float64  `json:"first_s"`
	Sources      []string `json:"sources"`
	LeaderEpochs []int32  `json:"leader_epochs,omitempty"`
	// Leaders are the brokers observed leading at those epochs.
	Leaders []int32 `json:"leaders,omitempty"`
	// Send is the outcome of the send that wrote the value, if any.
	Send string `json:"send,omitempty"`
}

// ValueEntry is one value (duplicate, aborted-read, unexpected).
type ValueEntry struct {
	Topic        string   `json:"topic"`
	Partition    int32    `json:"partition"`
	Value        string   `json:"value"`
	Offsets      []int64  `json:"offsets"`
	LeaderEpochs []int32  `json:"leader_epochs,omitempty"`
	ReadBy       []string `json:"read_by,omitempty"`
	// Send describes the send of the value: its process, outcome, error and
	// the offset it was acked at.
	Send  *SendRef    `json:"send,omitempty"`
	Where judge.Where `json:"where"`
}

// SendRef names a send.
type SendRef struct {
	Process  int     `json:"process"`
	Type     string  `json:"type"`
	Error    string  `json:"error,omitempty"`
	Offset   *int64  `json:"offset,omitempty"`
	InvokedS float64 `json:"invoked_s"`
	DoneS    float64 `json:"done_s,omitempty"`
}

// NonmonotonicSendEntry is one ok send acked below the same process's
// previous ok send on the partition.
type NonmonotonicSendEntry struct {
	Topic      string      `json:"topic"`
	Partition  int32       `json:"partition"`
	Process    int         `json:"process"`
	Value      string      `json:"value"`
	Offset     int64       `json:"offset"`
	AckedS     float64     `json:"acked_s"`
	PrevValue  string      `json:"prev_value"`
	PrevOffset int64       `json:"prev_offset"`
	PrevAckedS float64     `json:"prev_acked_s"`
	Where      judge.Where `json:"where"`
}

// PollEntry is one poll that skipped ahead (poll-skip) or went back
// (nonmonotonic-poll).
type PollEntry struct {
	Topic      string  `json:"topic"`
	Partition  int32   `json:"partition"`
	Process    int     `json:"process"`
	AtS        float64 `json:"at_s"`
	PrevOffset int64   `json:"prev_last_offset"`
	PrevValue  string  `json:"prev_value"`
	Offset     int64   `json:"first_offset"`
	Value      string  `json:"first_value"`
	// Skipped counts the offsets between the two polls that the final read
	// shows exist; SkippedOffsets and SkippedValues list the first of them.
	Skipped        int         `json:"skipped,omitempty"`
	SkippedOffsets []int64     `json:"skipped_offsets,omitempty"`
	SkippedValues  []string    `json:"skipped_values,omitempty"`
	Where          judge.Where `json:"where"`
}
