package histories

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// FlushInterval bounds how long an event may sit in the Recorder's buffer
// before it reaches the operating system. A crash of the harness therefore
// loses at most the last FlushInterval of history (and a torn last line,
// which the Reader accepts and reports).
const FlushInterval = 100 * time.Millisecond

// ErrRetired is returned when a process whose last op ended in info invokes
// again: Jepsen's model says such a process is gone, and the client must
// take a fresh id from NewProcess.
var ErrRetired = errors.New("process retired: its last op ended in info")

// Recorder appends events to a history. It is safe for concurrent use: one
// mutex orders all events, so index order is file order and times, taken
// under the same lock from one monotonic base, never go backwards.
type Recorder struct {
	mu      sync.Mutex
	w       *bufio.Writer
	file    *os.File // nil when writing to a plain io.Writer
	start   time.Time
	next    int64
	nextPID int
	open    map[int]string // process -> f of its open invoke
	retired map[int]bool
	dirty   bool
	err     error // first write error; sticky
	closed  bool
	done    chan struct{}
	wg      sync.WaitGroup
}

// Create opens path for writing (truncating it) and returns a Recorder
// whose time zero is now.
func Create(path string) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	r := NewRecorder(f)
	r.file = f
	return r, nil
}

// NewRecorder returns a Recorder writing to w. Close flushes it; if w is an
// *os.File opened by Create it is also synced and closed.
func NewRecorder(w io.Writer) *Recorder {
	r := &Recorder{
		w:       bufio.NewWriterSize(w, 64<<10),
		start:   time.Now(),
		open:    map[int]string{},
		retired: map[int]bool{},
		done:    make(chan struct{}),
	}
	r.wg.Add(1)
	go r.flusher()
	return r
}

func (r *Recorder) flusher() {
	defer r.wg.Done()
	t := time.NewTicker(FlushInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			r.mu.Lock()
			if r.dirty {
				r.flushLocked()
			}
			r.mu.Unlock()
		}
	}
}

// Start is the run's time zero; event times are nanoseconds since Start.
func (r *Recorder) Start() time.Time { return r.start }

// Elapsed is the time since Start on the monotonic clock.
func (r *Recorder) Elapsed() time.Duration { return time.Since(r.start) }

// NewProcess hands out a fresh client process id (0, 1, 2, ...).
func (r *Recorder) NewProcess() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.nextPID
	r.nextPID++
	return p
}

// Invoke records the start of an op by a client process (or the nemesis).
func (r *Recorder) Invoke(process int, f string, value any) (Event, error) {
	return r.Record(process, Invoke, f, value, "")
}

// Complete records the completion (ok, fail or info) of process's open op.
func (r *Recorder) Complete(process int, typ Type, f string, value any, errText string) (Event, error) {
	return r.Record(process, typ, f, value, errText)
}

// Record appends one event. For client processes (>= 0) it enforces the
// operation model: one open op per process, completions only after an
// invoke, and no invoke after an info. Negative processes (the nemesis and
// the observer) may record any sequence.
func (r *Recorder) Record(process int, typ Type, f string, value any, errText string) (Event, error) {
	if !typ.Valid() {
		return Event{}, fmt.Errorf("histories: bad event type %q", typ)
	}
	raw, err := marshalValue(value)
	if err != nil {
		return Event{}, fmt.Errorf("histories: encode %s value: %w", f, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return Event{}, errors.New("histories: recorder closed")
	}
	if r.err != nil {
		return Event{}, r.err
	}
	if process >= 0 {
		if err := r.checkModel(process, typ, f); err != nil {
			return Event{}, err
		}
	}
	e := Event{Index: r.next, Time: int64(time.Since(r.start)), Process: process,
		Type: typ, F: f, Value: raw, Error: errText}
	line, err := json.Marshal(&e)
	if err != nil {
		return Event{}, err
	}
	line = append(line, '\n')
	if _, err := r.w.Write(line); err != nil {
		r.err = err
		return Event{}, err
	}
	r.next++
	r.dirty = true
	if process == NemesisProcess {
		// Faults are rare and decisive: flush each at once so that a crash
		// right after a fault still leaves it in the history.
		r.flushLocked()
	}
	return e, r.err
}

func (r *Recorder) checkModel(process int, typ Type, f string) error {
	if r.retired[process] {
		return fmt.Errorf("histories: process %d: %w", process, ErrRetired)
	}
	openF, isOpen := r.open[process]
	if typ == Invoke {
		if isOpen {
			return fmt.Errorf("histories: process %d invokes %s while %s is open", process, f, openF)
		}
		r.open[process] = f
		if process >= r.nextPID {
			r.nextPID = process + 1
		}
		return nil
	}
	if !isOpen {
		return fmt.Errorf("histories: process %d completes %s without an invoke", process, f)
	}
	if openF != f {
		return fmt.Errorf("histories: process %d completes %s but invoked %s", process, f, openF)
	}
	delete(r.open, process)
	if typ == Info {
		r.retired[process] = true
	}
	return nil
}

func (r *Recorder) flushLocked() {
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	r.dirty = false
}

// Flush writes buffered events to the file now.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	return r.err
}

// Len is the number of events recorded so far.
func (r *Recorder) Len() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Close flushes, syncs and closes the history. Later Records fail.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return r.err
	}
	r.closed = true
	r.flushLocked()
	close(r.done)
	r.mu.Unlock()
	r.wg.Wait()
	if r.file != nil {
		if err := r.file.Sync(); err != nil && r.err == nil {
			r.err = err
		}
		if err := r.file.Close(); err != nil && r.err == nil {
			r.err = err
		}
	}
	return r.err
}

func marshalValue(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return x, nil
	}
	return json.Marshal(v)
}
