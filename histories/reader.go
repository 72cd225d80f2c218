package histories

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kchaos/kchaos/internal/bounds"
)

// LineError is a malformed line: the Reader names the 1-based line number.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("history line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader streams events from a history. A line may be up to
// bounds.HistoryLine long; a longer one is a *LineError, read no further
// than the bound. A last
// line without its newline that is incomplete JSON (a proper prefix of a
// JSON value, as a crash of the writer leaves it) is taken as torn: the
// Reader stops there and Truncated reports it. Any other malformed line,
// the last one included, is a *LineError naming its line number; after one,
// Next returns the same error again.
type Reader struct {
	br        *bufio.Reader
	line      int
	next      int64
	truncated bool
	tornLine  int
	done      bool
	err       error  // sticky LineError
	arena     []byte // the block the events' values are copied into (carve)
	ev        Event  // the event parse decodes into
}

// NewReader reads a history from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 256<<10)}
}

// Truncated reports, after Next returned io.EOF, whether the last line was
// torn (and so dropped).
func (r *Reader) Truncated() bool { return r.truncated }

// TornLine is the line number of the dropped torn line, or 0.
func (r *Reader) TornLine() int { return r.tornLine }

// Lines is the number of lines read so far.
func (r *Reader) Lines() int { return r.line }

// Next returns the next event, or io.EOF at the end of the history.
func (r *Reader) Next() (Event, error) {
	for {
		if r.err != nil {
			return Event{}, r.err
		}
		if r.done {
			return Event{}, io.EOF
		}
		raw, err := r.readLine()
		if errors.Is(err, errLineTooLong) {
			r.line++
			r.err = &LineError{Line: r.line, Err: err}
			return Event{}, r.err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return Event{}, err
		}
		atEOF := err != nil
		if atEOF {
			r.done = true
			if len(raw) == 0 {
				return Event{}, io.EOF
			}
		}
		r.line++
		// The Recorder's line, '{' to "}\n", has nothing to trim but its
		// newline: trimming it as any line was a twelfth of reading one.
		body := raw
		if n := len(raw); n >= 2 && raw[0] == '{' && raw[n-2] == '}' && raw[n-1] == '\n' {
			body = raw[:n-1]
		} else {
			body = bytes.TrimSpace(raw)
		}
		if len(body) == 0 {
			if atEOF {
				return Event{}, io.EOF
			}
			// Blank lines are tolerated (an editor's trailing newline).
			continue
		}
		e, perr := r.parse(body)
		if perr != nil {
			if atEOF && incomplete(body) {
				// The last line has no newline and stops mid-JSON: torn.
				r.truncated = true
				r.tornLine = r.line
				return Event{}, io.EOF
			}
			r.err = &LineError{Line: r.line, Err: perr}
			return Event{}, r.err
		}
		return e, nil
	}
}

// errLineTooLong is a line over bounds.HistoryLine.
var errLineTooLong = fmt.Errorf("longer than %s: want at most that per line (a final read of a partition is the longest real line)",
	bounds.Size(bounds.HistoryLine))

// readLine reads one line, its newline included, holding at most
// bounds.HistoryLine bytes of it: a longer line is errLineTooLong, read
// no further. The line may alias the Reader's buffer until the next call
// (parse copies what it keeps).
func (r *Reader) readLine() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return b, err
	}
	// Longer than the buffer: gather the pieces, then join them once.
	var parts [][]byte
	n := 0
	for errors.Is(err, bufio.ErrBufferFull) {
		n += len(b)
		if n > bounds.HistoryLine {
			return nil, errLineTooLong
		}
		parts = append(parts, append([]byte(nil), b...))
		b, err = r.br.ReadSlice('\n')
	}
	if n += len(b); n > bounds.HistoryLine+1 { // the newline is not the line's
		return nil, errLineTooLong
	}
	line := make([]byte, 0, n)
	for _, p := range parts {
		line = append(line, p...)
	}
	return append(line, b...), err
}

func (r *Reader) parse(body []byte) (Event, error) {
	// Decoded into the Reader's own Event and returned by value: a local
	// one escapes to the fast path's closures, an allocation per event.
	e := &r.ev
	*e = Event{}
	if !fastEventIn(body, e, &r.arena) { // the common case, decoded without reflection
		*e = Event{}
		// Unmarshal also rejects anything after the first value on the line.
		if err := json.Unmarshal(body, e); err != nil {
			return *e, fmt.Errorf("not a JSON event: %w", err)
		}
		if err := requireFields(body); err != nil {
			return *e, err
		}
	}
	if e.Index != r.next {
		return *e, fmt.Errorf("index %d, want %d (indexes count 0, 1, 2, ... in file order)", e.Index, r.next)
	}
	if !e.Type.Valid() {
		return *e, fmt.Errorf("type %q: want invoke, ok, fail or info", e.Type)
	}
	if e.F == "" {
		return *e, errors.New("missing f")
	}
	if e.Process < ObserverProcess {
		return *e, fmt.Errorf("process %d: want >= 0, -1 (nemesis) or -2 (observer)", e.Process)
	}
	if e.Time < 0 {
		return *e, fmt.Errorf("time %d is negative", e.Time)
	}
	r.next++
	return *e, nil
}

// eventFields are the fields every event has (docs/HISTORY.md): a line
// without one is bad input, never an event with a zero filled in.
var eventFields = []string{"index", "time", "process", "type", "f"}

// requireFields names the first required field absent from an event line.
// Keys match as encoding/json matches them, case-insensitively.
func requireFields(body []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("not a JSON event: %w", err)
	}
	for _, f := range eventFields {
		found := false
		for k, v := range m {
			if strings.EqualFold(k, f) && string(v) != "null" {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("missing field %q (every event has index, time, process, type and f)", f)
		}
	}
	return nil
}

// incomplete reports whether body is a proper prefix of a JSON value: what
// a write torn by a crash leaves. Only called on a line that failed to parse.
func incomplete(body []byte) bool {
	err := json.NewDecoder(bytes.NewReader(body)).Decode(new(json.RawMessage))
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// ReadAll reads every event of r. The bool reports a torn last line.
func ReadAll(r io.Reader) ([]Event, bool, error) {
	rd := NewReader(r)
	var out []Event
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Truncated(), nil
		}
		if err != nil {
			return out, false, err
		}
		out = append(out, e)
	}
}

// ReadFile reads a whole history file.
func ReadFile(path string) ([]Event, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return ReadAll(f)
}
