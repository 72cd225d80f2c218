package judge

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// ValueSeen gathers, for the values that an anomaly names, who read them.
type ValueSeen struct {
	ReadBy  []string
	Epochs  []int32
	Offsets []int64
	First   int64 // the earliest read's completion
	// has holds the epochs and offsets already listed, so that a value
	// read at many offsets costs linear time, not quadratic.
	hasEpoch map[int32]bool
	hasOff   map[int64]bool
}

// NewValueSeen starts the record of a value first read by op.
func NewValueSeen(op *model.Read) ValueSeen {
	return ValueSeen{First: op.Ret, hasEpoch: map[int32]bool{}, hasOff: map[int64]bool{}}
}

// Note adds one read of the value: by whom (the first five), its epoch and
// offset (each once), and the earliest read's completion.
func (s *ValueSeen) Note(by string, op *model.Read, r *model.Rec) {
	if len(s.ReadBy) < 5 {
		s.ReadBy = append(s.ReadBy, fmt.Sprintf("%s p%d at %.1f s (offset %d)", by, op.Proc, Secs(op.Ret), r.Off))
	}
	if !s.hasEpoch[r.Epoch] {
		s.hasEpoch[r.Epoch] = true
		s.Epochs = append(s.Epochs, r.Epoch)
	}
	if !s.hasOff[r.Off] {
		s.hasOff[r.Off] = true
		s.Offsets = append(s.Offsets, r.Off)
	}
	s.First = min(s.First, op.Ret)
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

// Decisive picks at most two of the faults that can lose acked data (the
// latest ones), or the last fault if none of them can.
func Decisive(faults []FaultRef) []FaultRef {
	var out []FaultRef
	for _, f := range faults {
		if histories.LosesAcked(f.F) {
			out = append(out, f)
		}
	}
	if len(out) == 0 && len(faults) > 0 {
		out = faults[len(faults)-1:]
	}
	if len(out) > 2 {
		out = out[len(out)-2:]
	}
	return out
}

// Held is what a read found at an offset.
type Held struct {
	Value       string `json:"value"`
	LeaderEpoch int32  `json:"leader_epoch"`
}
