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
