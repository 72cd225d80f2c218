package workloads

import (
	"sync/atomic"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// Recorder is what the workload needs of a history writer.
// *histories.Recorder implements it; it enforces Jepsen's process model
// (one open op per process, no invoke after info), so a workload bug that
// breaks the model fails loudly instead of writing a misleading history.
type Recorder interface {
	NewProcess() int
	Invoke(process int, f string, value any) (histories.Event, error)
	Complete(process int, typ histories.Type, f string, value any, errText string) (histories.Event, error)
	Record(process int, typ histories.Type, f string, value any, errText string) (histories.Event, error)
	// Elapsed is the history's clock now (an event's time is the same
	// clock): a value that must say when something was asked, before the
	// event that records its answer, reads it.
	Elapsed() time.Duration
}

var _ Recorder = (*histories.Recorder)(nil)

// Discard is a Recorder that writes nothing: the baseline of the recording
// overhead benchmark, where the same loops run without a history.
type Discard struct{ next atomic.Int64 }

// NewProcess hands out fresh ids, as the real recorder does.
func (d *Discard) NewProcess() int { return int(d.next.Add(1) - 1) }

// Invoke records nothing.
func (d *Discard) Invoke(int, string, any) (histories.Event, error) { return histories.Event{}, nil }

// Complete records nothing.
func (d *Discard) Complete(int, histories.Type, string, any, string) (histories.Event, error) {
	return histories.Event{}, nil
}

// Record records nothing.
func (d *Discard) Record(int, histories.Type, string, any, string) (histories.Event, error) {
	return histories.Event{}, nil
}

// Elapsed is 0: nothing is recorded, so no clock is kept.
func (d *Discard) Elapsed() time.Duration { return 0 }
