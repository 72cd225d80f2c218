package judge

import (
	"fmt"
	"strings"
)

// Explanation says one group of an analyzer's entries in words. For lost
// writes (or reused offsets) it is one partition's contiguous range and
// what the history shows of why: when they were acked and with which ISR,
// the faults around the loss, the leader and epoch that took over at the
// divergence offset, and what the offsets hold now. Text is the same in
// one sentence.
type Explanation struct {
	Kind        string `json:"kind"` // the anomaly kind it explains
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	FirstOffset int64  `json:"first_offset"`
	LastOffset  int64  `json:"last_offset"`
	Count       int    `json:"count"` // lost sends, or reused offsets
	// ReadNotAcked counts the lost values never acked with an offset that a
	// read saw (what a reader saw was written); their acked_s is when the
	// first read that saw them completed.
	ReadNotAcked int     `json:"read_not_acked,omitempty"`
	Offsets      []int64 `json:"offsets"`
	// Values are the lost values, or the values first seen at the reused
	// offsets; AckedS their ack times (0 for a value never acked).
	Values      []string  `json:"values"`
	AckedS      []float64 `json:"acked_s,omitempty"`
	ISRAtAck    [][]int32 `json:"isr_at_ack,omitempty"`
	LeaderAtAck []int32   `json:"leader_at_ack,omitempty"`
	EpochAtAck  []int32   `json:"leader_epoch_at_ack,omitempty"`
	// FaultBefore is the last fault made before the first ack; FaultsAfter
	// the faults made between it and the takeover (or the final read).
	FaultBefore *FaultRef  `json:"fault_before,omitempty"`
	FaultsAfter []FaultRef `json:"faults_after,omitempty"`
	// RequestsAfter are the request faults' actions in FaultsAfter's
	// window (RequestRef): moments, named, never a cause of loss.
	RequestsAfter []RequestRef `json:"requests_after,omitempty"`
	Elections     []Election   `json:"elections,omitempty"`
	TookOver      *Takeover    `json:"took_over,omitempty"`
	NowHold       *NowHold     `json:"now_hold,omitempty"`
	LogEnd        *int64       `json:"log_end,omitempty"`
	Text          string       `json:"text"`
}

// Election is a rise of the leader epoch seen by the observer.
type Election struct {
	AtS         float64 `json:"at_s"`
	Leader      int32   `json:"leader"`
	LeaderEpoch int32   `json:"leader_epoch"`
	// Kind is how the new leader stood in the sample before: "clean" (in
	// the ISR), "elr", "last-known-elr" or "unclean" (in none of them).
	Kind        string  `json:"kind"`
	PreviousISR []int32 `json:"previous_isr"`
}

// Takeover is the leader epoch found at the divergence offset and the
// broker the observer saw leading in it.
type Takeover struct {
	LeaderEpoch int32    `json:"leader_epoch"`
	Leader      *int32   `json:"leader,omitempty"`
	SinceS      *float64 `json:"since_s,omitempty"`
	Election    string   `json:"election,omitempty"`
}

// NowHold is what the final read has at the range's offsets.
type NowHold struct {
	FirstOffset int64    `json:"first_offset"`
	LastOffset  int64    `json:"last_offset"`
	Count       int      `json:"count"`
	Values      []string `json:"values"`
	// WrittenAfterFailure: every one of them was sent after the last ack
	// of the range.
	WrittenAfterFailure bool `json:"written_after_failure"`
}

// MaxListed bounds the offsets and values listed in one entry.
const MaxListed = 20

// OffsetList names offsets as the explanations' texts do: "offset 4",
// "offsets 4, 9", or "offset unknown" for none.
func OffsetList(offs []int64) string {
	switch len(offs) {
	case 0:
		return "offset unknown"
	case 1:
		return fmt.Sprintf("offset %d", offs[0])
	}
	s := make([]string, len(offs))
	for i, o := range offs {
		s[i] = fmt.Sprint(o)
	}
	return "offsets " + strings.Join(s, ", ")
}

// OffsetSpan names a range of offsets: "offset 4" or "offsets 4-9".
func OffsetSpan(first, last int64) string {
	if first == last {
		return fmt.Sprintf("offset %d", first)
	}
	return fmt.Sprintf("offsets %d-%d", first, last)
}
