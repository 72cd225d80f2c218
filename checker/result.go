package checker

import (
	"encoding/json"
	"fmt"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/retention"
)

// Verdict is results.json's "valid": true, false or "unknown".
type Verdict int

const (
	Valid Verdict = iota
	Unknown
	Invalid
)

func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// MarshalJSON writes true, false or "unknown", as HISTORY.md fixes.
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case Valid:
		return []byte("true"), nil
	case Invalid:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*v = Valid
	case "false":
		*v = Invalid
	case `"unknown"`:
		*v = Unknown
	default:
		return fmt.Errorf("valid: want true, false or \"unknown\", got %s", b)
	}
	return nil
}

// Result is what a check finds; it marshals to results.json.
type Result struct {
	Valid Verdict `json:"valid"`
	// Reasons says in words why the verdict is not true (and which anomalies
	// were found but do not count, such as duplicates from a producer that
	// was not idempotent).
	Reasons   []string       `json:"reasons,omitempty"`
	Anomalies Anomalies      `json:"anomalies"`
	Counts    map[string]int `json:"counts,omitempty"`
	// Explanations group lost writes and reused offsets into ranges.
	Explanations []Explanation `json:"explanations,omitempty"`
	Linearizable *Linearizable `json:"linearizable,omitempty"`
	Stats        Stats         `json:"stats"`
	// Idempotent is the producer setting the check assumed.
	Idempotent bool `json:"producer_idempotent"`
	// Against lists the anomaly names that count against validity in this
	// check (CountsAgainst), whether or not any was found.
	Against []string `json:"counted_against_validity,omitempty"`
}

// MarshalJSON writes results.json: "anomalies" (like every list and map)
// only when not empty, and the keys in the contract's order.
func (r *Result) MarshalJSON() ([]byte, error) {
	var anomalies *Anomalies
	if !r.Anomalies.empty() {
		anomalies = &r.Anomalies
	}
	return json.Marshal(struct {
		Valid        Verdict        `json:"valid"`
		Anomalies    *Anomalies     `json:"anomalies,omitempty"`
		Counts       map[string]int `json:"counts,omitempty"`
		Stats        *Stats         `json:"stats"`
		Reasons      []string       `json:"reasons,omitempty"`
		Explanations []Explanation  `json:"explanations,omitempty"`
		Linearizable *Linearizable  `json:"linearizable,omitempty"`
		Idempotent   bool           `json:"producer_idempotent"`
		Against      []string       `json:"counted_against_validity,omitempty"`
	}{r.Valid, anomalies, r.Counts, &r.Stats, r.Reasons, r.Explanations, r.Linearizable, r.Idempotent, r.Against})
}

// Anomaly names, as HISTORY.md fixes them; Nonlinearizable is kchaos's
// extension (porcupine found no linearization of a partition's log).
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
	Nonlinearizable  = "nonlinearizable"
)

// Anomalies lists each anomaly found, by name; a name is absent from
// results.json when its list is empty.
type Anomalies struct {
	LostWrite        []LostWriteEntry        `json:"lost-write,omitempty"`
	OffsetReuse      []OffsetReuseEntry      `json:"offset-reuse,omitempty"`
	Duplicate        []ValueEntry            `json:"duplicate,omitempty"`
	AbortedRead      []ValueEntry            `json:"aborted-read,omitempty"`
	Unexpected       []ValueEntry            `json:"unexpected,omitempty"`
	NonmonotonicSend []NonmonotonicSendEntry `json:"nonmonotonic-send,omitempty"`
	PollSkip         []PollEntry             `json:"poll-skip,omitempty"`
	NonmonotonicPoll []PollEntry             `json:"nonmonotonic-poll,omitempty"`
	Unseen           []SendEntry             `json:"unseen,omitempty"`
	// Retention (domain_retention.go).
	LogStartJump    []retention.Jump       `json:"log-start-jump,omitempty"`
	Nonlinearizable []NonlinearizableEntry `json:"nonlinearizable,omitempty"`
	// Transactions (txnresult.go).
	TxnLostWrite       []TxnLostWriteEntry `json:"txn-lost-write,omitempty"`
	TxnAbortedRead     []TxnValueEntry     `json:"txn-aborted-read,omitempty"`
	TxnUncommittedRead []TxnValueEntry     `json:"txn-uncommitted-read,omitempty"`
	TxnDuplicate       []TxnValueEntry     `json:"txn-duplicate,omitempty"`
	TxnTorn            []TxnTornEntry      `json:"txn-torn,omitempty"`
	G0                 []CycleEntry        `json:"G0,omitempty"`
	G1c                []CycleEntry        `json:"G1c,omitempty"`
	TxnHanging         []TxnHangingEntry   `json:"txn-hanging,omitempty"`
	// Consumer groups (groupresult.go).
	LostByCommit              []LostByCommitEntry      `json:"lost-by-commit,omitempty"`
	CommitBackwards           []CommitBackwardsEntry   `json:"commit-backwards,omitempty"`
	Redelivery                []RedeliveryEntry        `json:"redelivery,omitempty"`
	DeliveryOutsideAssignment []OutsideAssignmentEntry `json:"delivery-outside-assignment,omitempty"`
}

func (a *Anomalies) empty() bool { return len(a.counts()) == 0 }

// Where and FaultRef are how every analyzer's entries say where the
// cluster stood and which fault came before (package judge owns them).
type (
	Where    = judge.Where
	FaultRef = judge.FaultRef
)

// Held is what a read found at an offset.
type Held struct {
	Value       string `json:"value"`
	LeaderEpoch int32  `json:"leader_epoch"`
}

// LostWriteEntry is one acked send whose value the final read lacks.
type LostWriteEntry struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Value     string  `json:"value"`
	Process   int     `json:"process"`
	InvokedS  float64 `json:"invoked_s"`
	AckedS    float64 `json:"acked_s"`
	AtAck     Where   `json:"at_ack"`
	// Now is what the final read holds at that offset, if anything.
	Now *Held `json:"now,omitempty"`
	// Range is the index of the explanation that covers this send.
	Range          int        `json:"range"`
	NewLeader      *int32     `json:"new_leader,omitempty"`
	NewLeaderEpoch *int32     `json:"new_leader_epoch,omitempty"`
	Faults         []FaultRef `json:"faults,omitempty"`
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
	JudgedBy *FinalReadRef `json:"judged_by,omitempty"`
}

// FinalReadRef names one completed final read.
type FinalReadRef struct {
	Process   int     `json:"process"`
	InvokedS  float64 `json:"invoked_s"`
	DoneS     float64 `json:"done_s"`
	Isolation string  `json:"isolation"`
	// End is the offset it read up to on the partition (a read_committed
	// read's is the last stable offset), if it said.
	End *int64 `json:"end,omitempty"`
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
	Faults []FaultRef `json:"faults,omitempty"`
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
	Send  *SendRef `json:"send,omitempty"`
	Where Where    `json:"where"`
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
	Topic      string  `json:"topic"`
	Partition  int32   `json:"partition"`
	Process    int     `json:"process"`
	Value      string  `json:"value"`
	Offset     int64   `json:"offset"`
	AckedS     float64 `json:"acked_s"`
	PrevValue  string  `json:"prev_value"`
	PrevOffset int64   `json:"prev_offset"`
	PrevAckedS float64 `json:"prev_acked_s"`
	Where      Where   `json:"where"`
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
	Skipped        int      `json:"skipped,omitempty"`
	SkippedOffsets []int64  `json:"skipped_offsets,omitempty"`
	SkippedValues  []string `json:"skipped_values,omitempty"`
	Where          Where    `json:"where"`
}

// SendEntry is one acked send (unseen): a plain send, or a send of a
// committed txn (TransactionalID set; AckedS is when the txn committed).
type SendEntry struct {
	Topic           string  `json:"topic"`
	Partition       int32   `json:"partition"`
	Value           string  `json:"value"`
	Offset          int64   `json:"offset"`
	Process         int     `json:"process"`
	AckedS          float64 `json:"acked_s"`
	AtAck           Where   `json:"at_ack"`
	TransactionalID string  `json:"transactional_id,omitempty"`
}

func ints(v []int32) string { return judge.Ints(v) }
