// Package pass is one decode of a history shared by everything that reads
// it: the checker, the report's timeline builder and the harness's
// metrics each used to read history.jsonl on their own (four times for a
// run of a batch), and decoding the file cost more than judging it. A
// Pass takes each decoded event once, adds it to the shared Timeline of
// faults and samples, then hands it to its sinks in the order they were
// attached. Whoever reads the file drives the Pass (the checker's
// CheckReader on its own goroutine, or Read when there is no check, as
// when an older run folder's report is remade), so the file is decoded
// once whichever way it is read.
//
// It imports nothing of kchaos but histories: checker and report may use
// it without touching a cluster.
package pass

import (
	"errors"
	"io"

	"github.com/kchaos/kchaos/histories"
)

// Sink takes the events of a pass one at a time, in file order, after the
// Timeline took them. It may keep nothing that aliases e (its value's
// bytes are the reader's); it decodes what it needs.
type Sink interface {
	Add(e *histories.Event)
}

// SinkFunc makes a function a Sink.
type SinkFunc func(e *histories.Event)

// Add calls f.
func (f SinkFunc) Add(e *histories.Event) { f(e) }

// Pass is one decode of a history: the Timeline and the sinks attached.
type Pass struct {
	Timeline Timeline
	sinks    []Sink
	done     bool
}

// New returns an empty Pass.
func New() *Pass { return &Pass{Timeline: newTimeline()} }

// Attach adds a sink; attach every sink before the first event.
func (p *Pass) Attach(s Sink) { p.sinks = append(p.sinks, s) }

// Add takes the next event: the Timeline first (a sink may ask it what
// holds at this event), then each sink.
func (p *Pass) Add(e *histories.Event) {
	p.Timeline.add(e)
	for _, s := range p.sinks {
		s.Add(e)
	}
}

// Done ends the pass: torn says the last line was torn (and dropped), err
// is why the history could not be read to its end (nil when it was). A
// sink's figures cover the events before err.
func (p *Pass) Done(torn bool, err error) {
	p.Timeline.Torn, p.Timeline.Err, p.done = torn, err, true
}

// Finished reports whether Done was called: a pass that a failed check
// abandoned midway is not finished, and its sinks' figures are partial.
func (p *Pass) Finished() bool { return p.done }

// Read decodes r once into p and ends it (Done): the path for a history
// that no checker reads. A malformed line ends the pass there (Err), as
// the report shows what came before it.
func (p *Pass) Read(r io.Reader) {
	rd := histories.NewReader(r)
	for {
		e, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			p.Done(rd.Truncated(), err)
			return
		}
		p.Add(&e)
	}
}

// ReadFile is Read of a regular file (histories.OpenRegular); an error
// opening it ends the pass with that error.
func (p *Pass) ReadFile(path string) {
	f, err := histories.OpenRegular(path)
	if err != nil {
		p.Done(false, err)
		return
	}
	defer f.Close()
	p.Read(f)
}
