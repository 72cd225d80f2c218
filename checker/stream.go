package checker

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
)

// checkReader checks a history as it streams from r: the events are never
// all in memory at once, and parsing (one goroutine) overlaps checking
// (another) and, with Options.Pass, the pass's sinks (a third: the report's
// timeline and the harness's metrics, which so cost no decode of their
// own). A malformed line, or an event that breaks the operation model or
// whose value does not have its contract shape, is a *histories.LineError
// naming the line; the pass is then left unfinished.
func checkReader(r io.Reader, opts Options) (*Result, error) {
	rd := histories.NewReader(r)
	p := opts.Pass
	consumers := int32(1)
	if p != nil {
		consumers = 2
	}
	batches := make(chan *batch, 4)
	var toSinks chan *batch
	if p != nil {
		toSinks = make(chan *batch, 4)
	}
	free := make(chan *batch, 8)
	// release hands a batch back once every consumer is done with it.
	release := func(b *batch) {
		if b.users.Add(-1) == 0 {
			select {
			case free <- b:
			default:
			}
		}
	}
	quit := make(chan struct{})
	var readErr error
	go func() {
		defer func() {
			close(batches)
			if toSinks != nil {
				close(toSinks)
			}
		}()
		send := func(b *batch) bool {
			b.users.Store(consumers)
			for _, ch := range []chan *batch{batches, toSinks} {
				if ch == nil {
					continue
				}
				select {
				case ch <- b:
				case <-quit:
					return false
				}
			}
			return true
		}
		for {
			var b *batch
			select {
			case b = <-free:
				b.events, b.lines = b.events[:0], b.lines[:0]
			default:
				b = &batch{}
			}
			for len(b.events) < batchSize {
				e, err := rd.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						readErr = err
					}
					send(b)
					return
				}
				b.events = append(b.events, e)
				b.lines = append(b.lines, rd.Lines())
			}
			if !send(b) {
				return
			}
		}
	}()
	var sinks sync.WaitGroup
	if p != nil {
		sinks.Add(1)
		go func() {
			defer sinks.Done()
			for b := range toSinks {
				select {
				case <-quit:
					continue // the check failed: the pass is abandoned
				default:
				}
				for i := range b.events {
					p.Add(&b.events[i])
				}
				release(b)
			}
		}()
	}
	c := newChecker(opts)
	var addErr error
	for b := range batches {
		for i := range b.events {
			if addErr == nil {
				c.line = b.lines[i]
				if err := c.Add(&b.events[i]); err != nil {
					line := b.lines[i]
					if ie := (*invokeError)(nil); errors.As(err, &ie) && ie.line > 0 {
						line = ie.line // the line that carries the field
					}
					addErr = &histories.LineError{Line: line, Err: err}
					close(quit)
				}
			}
		}
		release(b)
	}
	if addErr != nil {
		sinks.Wait()
		return nil, addErr
	}
	if readErr != nil {
		sinks.Wait()
		return nil, readErr
	}
	c.tornLine = rd.TornLine()
	// The sinks finish while the checker judges.
	res := c.result()
	sinks.Wait()
	if p != nil {
		p.Done(rd.Truncated(), nil)
	}
	return res, nil
}

// batch carries events from the parsing goroutine to the checking one
// (and to the pass's sinks).
type batch struct {
	events []histories.Event
	lines  []int
	users  atomic.Int32 // consumers not yet done with it
}

const batchSize = 512

// feed hands events to a pass and ends it: checkEvents's in-memory history.
func feed(p *pass.Pass, events []histories.Event) {
	if p == nil {
		return
	}
	for i := range events {
		p.Add(&events[i])
	}
	p.Done(false, nil)
}
