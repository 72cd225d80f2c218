// Package linearize is the checker's linearizability analyzer: porcupine's
// search for a linearization of each partition's log (the model and what
// it adds are in package logmodel), kchaos's extension of the contract.
// It declares its anomaly (nonlinearizable, per partition, always against
// validity), reads the decoded history (package model) and returns what it
// found (Analyzer, domain.Analyzer).
//
// Partitions holding transactional writes or read_committed reads are
// left out: the model does not know transactions (LeftOut names them).
package linearize

import (
	"time"

	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/model"
)

const (
	// DefaultPorcupineTimeout is the linearizability budget of a check.
	DefaultPorcupineTimeout = 2 * time.Minute
	// DefaultWindow is the offsets per porcupine partition of a large history.
	DefaultWindow = 2048
	// SmallHistory is the most client ops of a history that porcupine checks
	// whole (one partition per topic-partition) and visualizes throughout.
	SmallHistory = 5000
)

// config steers the search (package domain owns its fields, since every
// check's options reach the domains through domain.Input).
type config = domain.Porcupine

// found is what the search found.
type found struct {
	Linearizable    *Linearizable
	Nonlinearizable []NonlinearizableEntry
	// Reasons are notes for the Result's reasons (a visualization that
	// could not be written).
	Reasons []string
}

// run is one search over a history.
type run struct {
	h       *model.History
	acked   [][]int32 // per partition, its sends acked with an offset, in send order
	cfg     config
	ackApp  []int32 // send -> its append in the partition's porcupine history
	entries []NonlinearizableEntry
	reasons []string
}

// check searches each partition's log of h for a linearization. acked
// is, per partition, its sends acked with an offset, in send order.
func check(h *model.History, acked [][]int32, cfg config) found {
	a := &run{h: h, acked: acked, cfg: cfg}
	l := a.linearizability()
	return found{Linearizable: l, Nonlinearizable: a.entries, Reasons: a.reasons}
}

// LeftOut names the partitions that the log model leaves out: those
// holding txn writes or read_committed reads. The model knows appends and
// reads of one log, not transactions (a read_committed read stops at the
// last stable offset, aborted records are in the log but never visible to
// it, markers take offsets): the transaction checks judge them instead,
// and leaving them out makes no verdict unknown.
func LeftOut(h *model.History) []string {
	var out []string
	for tp, t := range h.TPs {
		if h.IsTxnTP(int32(tp)) {
			out = append(out, t.Name())
		}
	}
	return out
}

// NonlinearizableEntry is one topic-partition whose log porcupine could
// not linearize.
type NonlinearizableEntry struct {
	Topic         string   `json:"topic"`
	Partition     int32    `json:"partition"`
	Windows       []Window `json:"windows"`
	Visualization string   `json:"visualization,omitempty"`
	// RealTime is the first pair of appends whose offsets go against real
	// time (a send invoked after a higher offset was acked).
	RealTime *RealTimeViolation `json:"real_time,omitempty"`
}

// Window is a range of offsets checked as one porcupine partition.
type Window struct {
	FirstOffset int64 `json:"first_offset"`
	LastOffset  int64 `json:"last_offset"`
	Ops         int   `json:"ops"`
}
