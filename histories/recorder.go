package histories

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// flushInterval bounds how long an event may sit in the Recorder's buffer
// before its write to the operating system begins. A crash of the harness
// therefore loses at most the last FlushInterval of history, plus what
// waited behind a write the disk was still stalling (at most maxPending
// bytes), and a torn last line, which the Reader accepts and reports.
const flushInterval = 100 * time.Millisecond

// errRetired is returned when a process whose last op ended in info invokes
// again: Jepsen's model says such a process is gone, and the client must
// take a fresh id from NewProcess.
var errRetired = errors.New("process retired: its last op ended in info")

// ErrClosed is returned by Record (and so Invoke and Complete) after Close.
var ErrClosed = errors.New("histories: recorder closed")

// Recorder appends events to a history. It is safe for concurrent use: one
// mutex orders all events, so index order is file order and times, taken
// under the same lock from one monotonic base, never go backwards.
//
// Record only appends the event's line to memory; the flusher goroutine
// writes what has accumulated to the file every FlushInterval/2, or as
// soon as writeAt bytes wait. A client therefore never waits on the disk
// (on 2026-12-02 a share group's members, writing 10 MB/s of history
// beside three brokers' logs on the same disk, lost 13-30 % of their rate
// to write calls in Record, while the history without its writes cost
// nothing measurable), except when maxPending bytes are waiting: then
// Record waits for the flusher (backpressure, not loss). A nemesis event
// is written at once, before Record returns.
type Recorder struct {
	mu      sync.Mutex
	out     io.Writer
	file    *os.File     // nil when writing to a plain io.Writer
	sync    func() error // file.Sync; a seam for tests
	start   time.Time
	next    int64
	nextPID int
	open    map[int]string // process -> f of its open invoke
	retired map[int]bool
	pending []byte     // lines not yet written, in index order; under mu
	spare   []byte     // the flusher's last buffer, for reuse; under mu
	room    *sync.Cond // on mu: signalled when the flusher took pending
	wmu     sync.Mutex // orders the writes: held from taking pending to writing it
	kick    chan struct{}
	err     error // first write error; sticky
	closed  bool
	done    chan struct{} // closed by Close to stop the flusher
	shut    chan struct{} // closed when Close has synced and closed the file
	wg      sync.WaitGroup
	taps    []func(Event) // Tap's; under mu
}

// writeAt is how many pending bytes wake the flusher before its tick;
// maxPending how many make Record wait for it.
const (
	writeAt    = 64 << 10
	maxPending = 16 << 20
)

// Create opens path for writing (truncating it) and returns a Recorder
// whose time zero is now.
func Create(path string) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	r := NewRecorder(f)
	r.file = f
	r.sync = f.Sync
	return r, nil
}

// NewRecorder returns a Recorder writing to w. Close flushes it; if w is an
// *os.File opened by Create it is also synced and closed.
func NewRecorder(w io.Writer) *Recorder {
	r := &Recorder{
		out:     w,
		kick:    make(chan struct{}, 1),
		start:   time.Now(),
		open:    map[int]string{},
		retired: map[int]bool{},
		done:    make(chan struct{}),
		shut:    make(chan struct{}),
	}
	r.room = sync.NewCond(&r.mu)
	r.wg.Add(1)
	go r.flusher()
	return r
}

func (r *Recorder) flusher() {
	defer r.wg.Done()
	t := time.NewTicker(flushInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			r.write()
		case <-r.kick:
			r.write()
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
	if typ == Invoke {
		return Event{}, fmt.Errorf("histories: process %d: Complete %s with type invoke", process, f)
	}
	return r.Record(process, typ, f, value, errText)
}

// Record appends one event. For client processes (>= 0) it enforces the
// operation model: one open op per process, completions only after an
// invoke, and no invoke after an info. Negative processes (the nemesis and
// the observer) may record any sequence. It refuses what the Reader would
// reject (a bad type, an empty f, a process below ObserverProcess, a value
// that is not JSON); a refused event changes nothing. The returned Event
// is what the file holds, except that a share member's poll and ack
// values (SharePollValue, ShareAckValue) are not kept: its Value is nil
// (they are encoded into a pooled buffer, shares_json.go).
func (r *Recorder) Record(process int, typ Type, f string, value any, errText string) (Event, error) {
	if !typ.Valid() {
		return Event{}, fmt.Errorf("histories: bad event type %q", typ)
	}
	if f == "" {
		return Event{}, errors.New("histories: event without f")
	}
	if process < ObserverProcess {
		return Event{}, fmt.Errorf("histories: process %d: want >= 0, %d (nemesis) or %d (observer)",
			process, NemesisProcess, ObserverProcess)
	}
	// The value is encoded before taking the lock, so that concurrent
	// clients serialise only on copying bytes: the recording overhead
	// stays small next to a send (see BenchmarkRecordSend). A share
	// member's values go into a pooled buffer (appendPerRecord) and the
	// Event does not keep them.
	var raw json.RawMessage
	buf, pooled := appendPerRecord(value)
	if pooled {
		raw = buf.b
		defer buf.put()
	} else {
		var err error
		if raw, err = marshalValue(value); err != nil {
			return Event{}, fmt.Errorf("histories: encode %s value: %w", f, err)
		}
	}
	r.mu.Lock()
	for len(r.pending) >= maxPending && !r.closed && r.err == nil {
		r.room.Wait()
	}
	if r.closed || r.err != nil {
		err := r.err
		if r.closed {
			err = ErrClosed
		}
		r.mu.Unlock()
		return Event{}, err
	}
	e, err := r.appendLocked(process, typ, f, raw, errText)
	if pooled {
		e.Value = nil // written, not kept
	}
	if err == nil && process < 0 {
		for _, tap := range r.taps {
			tap(e)
		}
	}
	if len(r.pending) >= writeAt {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	r.mu.Unlock()
	if err == nil && process == NemesisProcess {
		// Faults are rare and decisive: write each at once so that a crash
		// right after a fault still leaves it in the history.
		err = r.Flush()
	}
	return e, err
}

// Tap has fn told each nemesis and observer event once it is recorded,
// in index order (under the recorder's lock: fn must be quick and must
// not record): a live schedule's chooser follows Kafka's state through it
// (nemesis.Chooser). Clients' events are not tapped: they are the hot
// path, and nothing that runs live needs them.
func (r *Recorder) Tap(fn func(Event)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.taps = append(r.taps, fn)
}

// appendLocked checks the event against the operation model and appends
// its line to pending (under mu).
func (r *Recorder) appendLocked(process int, typ Type, f string, raw json.RawMessage, errText string) (Event, error) {
	if process >= 0 {
		if err := r.checkModel(process, typ, f); err != nil {
			return Event{}, err
		}
	}
	e := Event{Index: r.next, Time: int64(time.Since(r.start)), Process: process,
		Type: typ, F: f, Value: raw, Error: errText}
	line := r.pending
	line = append(line, `{"index":`...)
	line = strconv.AppendInt(line, e.Index, 10)
	line = append(line, `,"time":`...)
	line = strconv.AppendInt(line, e.Time, 10)
	line = append(line, `,"process":`...)
	line = strconv.AppendInt(line, int64(process), 10)
	r.pending = appendTail(line, typ, f, raw, errText)
	if process >= 0 {
		r.applyModel(process, typ, f)
	}
	r.next++
	return e, nil
}

// checkModel reports whether a client process may record the event. It
// changes nothing: applyModel does, once the event is appended.
func (r *Recorder) checkModel(process int, typ Type, f string) error {
	if r.retired[process] {
		return fmt.Errorf("histories: process %d: %w", process, errRetired)
	}
	openF, isOpen := r.open[process]
	if typ == Invoke {
		if isOpen {
			return fmt.Errorf("histories: process %d invokes %s while %s is open", process, f, openF)
		}
		return nil
	}
	if !isOpen {
		return fmt.Errorf("histories: process %d completes %s without an invoke", process, f)
	}
	if openF != f {
		return fmt.Errorf("histories: process %d completes %s but invoked %s", process, f, openF)
	}
	return nil
}

func (r *Recorder) applyModel(process int, typ Type, f string) {
	if typ == Invoke {
		r.open[process] = f
		if process >= r.nextPID {
			r.nextPID = process + 1
		}
		return
	}
	delete(r.open, process)
	if typ == Info {
		r.retired[process] = true
	}
}

// write takes the pending lines and writes them to the file, outside mu
// (wmu keeps the writes in order); a write error is kept (sticky).
func (r *Recorder) write() {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.mu.Lock()
	buf := r.pending
	r.pending, r.spare = r.spare[:0], nil
	if r.pending == nil {
		r.pending = make([]byte, 0, 2*writeAt)
	}
	failed := r.err != nil
	r.room.Broadcast()
	r.mu.Unlock()
	var err error
	if len(buf) > 0 && !failed {
		_, err = r.out.Write(buf)
	}
	r.mu.Lock()
	if err != nil && r.err == nil {
		r.err = err
		r.room.Broadcast()
	}
	if cap(buf) <= 4*maxPending {
		r.spare = buf[:0]
	}
	r.mu.Unlock()
}

// Flush writes the events recorded so far to the file now.
func (r *Recorder) Flush() error {
	r.write()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Len is the number of events recorded so far.
func (r *Recorder) Len() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Close flushes, syncs and closes the history. Later Records fail with
// ErrClosed. Every call, concurrent or later, returns the same error: the
// first write, flush, sync or close error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.shut
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.err
	}
	r.closed = true
	r.room.Broadcast()
	close(r.done)
	r.mu.Unlock()
	r.wg.Wait()
	r.write()

	r.mu.Lock()
	defer r.mu.Unlock()
	defer close(r.shut)
	if r.file != nil {
		if err := r.sync(); err != nil && r.err == nil {
			r.err = err
		}
		if err := r.file.Close(); err != nil && r.err == nil {
			r.err = err
		}
	}
	return r.err
}

// appendTail appends an event's fields after "process", in the order and
// with the omissions of encoding/json on Event (the Reader's fast path
// relies on that exact form), and the closing brace and newline.
func appendTail(b []byte, typ Type, f string, raw json.RawMessage, errText string) []byte {
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	b = append(b, `","f":`...)
	b = appendJSONString(b, f)
	if len(raw) > 0 {
		b = append(b, `,"value":`...)
		b = append(b, raw...)
	}
	if errText != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, errText)
	}
	return append(b, '}', '\n')
}

// marshalValue encodes an event's value. A json.RawMessage is validated and
// encoded as json.Marshal will write it in the line (compact, HTML-escaped),
// so that the Event that Record returns is byte for byte what the file holds.
func marshalValue(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(x) == 0 {
			return nil, nil
		}
	}
	return json.Marshal(v)
}
