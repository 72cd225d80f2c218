// Package histories is the history format v1 (see docs/HISTORY.md): the one
// contract that workloads, nemeses, the observer and the checker share. It
// holds the event types, a concurrent Recorder that writes history.jsonl
// as events happen, and a streaming Reader.
//
// It imports nothing that touches Docker or the network.
package histories

import (
	"encoding/json"
	"sort"
	"strconv"
)

// Type is an event's place in Jepsen's operation model.
type Type string

const (
	Invoke Type = "invoke" // an operation begins
	OK     Type = "ok"     // it happened
	Fail   Type = "fail"   // it definitely did not happen
	Info   Type = "info"   // unknown whether it happened
)

// Valid reports whether t is one of the four types.
func (t Type) Valid() bool {
	switch t {
	case Invoke, OK, Fail, Info:
		return true
	}
	return false
}

// Well-known process ids.
const (
	NemesisProcess  = -1
	ObserverProcess = -2
)

// Operation names (the event's f).
const (
	FSend      = "send"
	FPoll      = "poll"
	FFinalRead = "final-read"
	FAssign    = "assign"
	FObserve   = "observe"
)

// Event is one line of history.jsonl.
//
// Value keeps the raw JSON of what was asked or learned: its shape depends on
// F and Process, and the typed accessors below decode the shapes that the
// contract fixes. Unknown fields survive a read-write round trip.
type Event struct {
	Index   int64           `json:"index"`
	Time    int64           `json:"time"`
	Process int             `json:"process"`
	Type    Type            `json:"type"`
	F       string          `json:"f"`
	Value   json.RawMessage `json:"value,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// SendValue is a send's value: the invoke asks for topic/partition/value;
// an ok completion adds the offset. Offset is nil when the broker did not
// say (acks=0): such a send's outcome is unknown, like info.
type SendValue struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Value     string `json:"value"`
	Offset    *int64 `json:"offset,omitempty"`
	// Key is optional: set when the producer partitions by key.
	Key string `json:"key,omitempty"`
}

// ReadRequest is the invoke value of poll and final-read.
type ReadRequest struct {
	Topic      string  `json:"topic"`
	Partitions []int32 `json:"partitions"`
	From       *int64  `json:"from,omitempty"`
	// Isolation (extension, optional): ReadCommitted or ReadUncommitted;
	// absent is read_uncommitted. A read_committed final read's
	// end_offsets are the last stable offsets it read up to.
	Isolation string `json:"isolation,omitempty"`
}

// Record is one record a poll or final read returned.
type Record struct {
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	Value       string `json:"value"`
	LeaderEpoch int32  `json:"leader_epoch"`
}

// ReadResult is the ok value of poll and final-read. EndOffsets is set on
// final-read only: for each partition (JSON object keys are strings), the
// offset up to which every record from the log start was read.
type ReadResult struct {
	Topic      string           `json:"topic"`
	Records    []Record         `json:"records"`
	EndOffsets map[string]int64 `json:"end_offsets,omitempty"`
	// StartOffsets (extension, optional): the log start offset of each
	// partition at the time of the final read.
	StartOffsets map[string]int64 `json:"start_offsets,omitempty"`
	// LocalStartOffsets and HighestRemoteOffsets (extension, optional,
	// final reads): each partition's local log start offset and highest
	// offset in the remote tier as its leader answered them when the read
	// began (ListOffsets -4 and -5, as the observer's). On a tiered
	// partition the records below the local log start were served from
	// the remote tier.
	LocalStartOffsets    map[string]int64 `json:"local_start_offsets,omitempty"`
	HighestRemoteOffsets map[string]int64 `json:"highest_remote_offsets,omitempty"`
	// HighWatermarks and LastStableOffsets (extension, optional, final
	// reads): each partition's high watermark and last stable offset as
	// its leader answered ListOffsets when the read took its end. Between
	// the two lie the records a read_committed reader cannot reach yet.
	HighWatermarks    map[string]int64 `json:"high_watermarks,omitempty"`
	LastStableOffsets map[string]int64 `json:"last_stable_offsets,omitempty"`
	// OpenTxns (extension, optional, final reads): per partition, the
	// transactions its leader still holds open (DescribeProducers, KIP-664),
	// with what the transaction coordinators say of them (ListTransactions,
	// DescribeTransactions). See OpenTxn.
	OpenTxns map[string][]OpenTxn `json:"open_txns,omitempty"`
	// OpenTxnsError says, per partition, why its open transactions could
	// not be had.
	OpenTxnsError map[string]string `json:"open_txns_error,omitempty"`
}

// OpenTxn is one transaction a partition's leader holds open: a producer
// whose current transaction began at FirstOffset and has no commit or abort
// marker yet. It is what `kafka-transactions.sh describe-producers` shows,
// joined with the coordinator's view, so that a report can say what
// `find-hanging` would say and how an operator recovers (`abort` with the
// producer id, epoch and coordinator epoch below).
type OpenTxn struct {
	ProducerID       int64 `json:"producer_id"`
	ProducerEpoch    int16 `json:"producer_epoch"`
	CoordinatorEpoch int32 `json:"coordinator_epoch"`
	// FirstOffset is the offset of the transaction's first record on the
	// partition: the last stable offset cannot pass it.
	FirstOffset int64 `json:"first_offset"`
	// LastTimestamp is the wall-clock time (ms since the Unix epoch) of the
	// producer's last append to the partition; OpenMS is how long before the
	// final read that was (the transaction has been open at least that long).
	LastTimestamp int64 `json:"last_timestamp"`
	OpenMS        int64 `json:"open_ms"`
	// DescribedAt is when the leader was asked, on the history's clock
	// (ns since the run started): the transaction was open then.
	DescribedAt int64 `json:"described_at"`
	// TransactionalID is the id whose producer this is, as ListTransactions
	// names it; empty when no coordinator lists the producer id.
	TransactionalID string `json:"transactional_id,omitempty"`
	// CoordinatorState is the id's state at its coordinator
	// (DescribeTransactions: Ongoing, PrepareCommit, CompleteCommit, ...),
	// empty when unknown; CoordinatorHasPartition says whether the
	// coordinator's current transaction includes this partition, and
	// CoordinatorProducerEpoch is the epoch the coordinator holds for it.
	CoordinatorState         string `json:"coordinator_state,omitempty"`
	CoordinatorHasPartition  bool   `json:"coordinator_has_partition,omitempty"`
	CoordinatorProducerEpoch *int16 `json:"coordinator_producer_epoch,omitempty"`
	// TimeoutMS is the transaction's timeout as its coordinator knows it
	// (0 when unknown).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Hanging is what `kafka-transactions.sh find-hanging` decides from the
	// same answers: the partition holds the transaction open while its
	// coordinator does not (no id lists the producer, or the id's current
	// transaction is another epoch, is not Ongoing, or lacks the partition).
	// find-hanging lists it once OpenMS passes its --max-transaction-timeout
	// (the broker's transaction.max.timeout.ms, 15 min by default).
	Hanging bool `json:"hanging"`
	// Error is why the coordinator's view could not be had, if it could not.
	Error string `json:"error,omitempty"`
}

// AssignValue is an assign's value: where a consumer (re)positioned itself.
type AssignValue struct {
	Topic      string           `json:"topic"`
	Partitions []int32          `json:"partitions"`
	Offsets    map[string]int64 `json:"offsets,omitempty"`
}

// ObserveValue is one sample of a partition's state taken by the observer.
type ObserveValue struct {
	Topic         string           `json:"topic"`
	Partition     int32            `json:"partition"`
	Leader        int32            `json:"leader"`
	LeaderEpoch   int32            `json:"leader_epoch"`
	ISR           []int32          `json:"isr"`
	ELR           []int32          `json:"elr"`
	LastKnownELR  []int32          `json:"last_known_elr"`
	HighWatermark int64            `json:"high_watermark"`
	LogEndOffsets map[string]int64 `json:"log_end_offsets,omitempty"`
	// LogStartOffset (extension, optional): the partition's log start
	// offset as its leader answered ListOffsets (earliest, -2): below it
	// nothing can be read, locally or from the remote tier.
	LogStartOffset *int64 `json:"log_start_offset,omitempty"`
	// LocalLogStartOffset and HighestRemoteOffset (extension, optional,
	// tiered storage): the first offset still on the leader's disk
	// (earliest-local, -4, KIP-405) and the highest offset in the remote
	// tier (latest-tiered, -5, KIP-1005; -1 while nothing is tiered).
	LocalLogStartOffset *int64 `json:"local_log_start_offset,omitempty"`
	HighestRemoteOffset *int64 `json:"highest_remote_offset,omitempty"`
}

// NemesisValue is the value of a nemesis op. Fault names the fault, Nodes
// the broker or controller ids it touched; Details carries anything else
// (the partition shape, the config set, the seed, the offsets cut, ...).
type NemesisValue struct {
	Fault   string         `json:"fault,omitempty"`
	Nodes   []int32        `json:"nodes,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// Decode unmarshals the event's value into v.
func (e *Event) Decode(v any) error {
	if len(e.Value) == 0 {
		return nil
	}
	return json.Unmarshal(e.Value, v)
}

// PartitionKey renders a partition number as a JSON object key.
func PartitionKey(p int32) string { return strconv.FormatInt(int64(p), 10) }

// ParsePartitionKey is the inverse of PartitionKey.
func ParsePartitionKey(s string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	return int32(v), err
}

// SortedPartitions returns the keys of a partition-keyed map in numeric order.
func SortedPartitions(m map[string]int64) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		if p, err := ParsePartitionKey(k); err == nil {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
