package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newFileRecorder creates a Recorder on a fresh history.jsonl in a temp dir.
// The recorder is closed at the end of the test if the test did not.
func newFileRecorder(t testing.TB) (*Recorder, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	rec, err := Create(path)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() { rec.Close() })
	return rec, path
}

// fileLines returns the complete (newline-terminated) lines of path and any
// bytes after the last newline.
func fileLines(t testing.TB, path string) (lines [][]byte, tail []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return lines, b
		}
		lines = append(lines, b[:i])
		b = b[i+1:]
	}
}

func mustRecord(t testing.TB, rec *Recorder, process int, typ Type, f string, value any, errText string) Event {
	t.Helper()
	e, err := rec.Record(process, typ, f, value, errText)
	if err != nil {
		t.Fatalf("Record(%d, %s, %s): %v", process, typ, f, err)
	}
	return e
}

// sameEvent compares events field by field (Value byte for byte).
func sameEvent(a, b Event) bool {
	return a.Index == b.Index && a.Time == b.Time && a.Process == b.Process &&
		a.Type == b.Type && a.F == b.F && a.Error == b.Error && bytes.Equal(a.Value, b.Value)
}

// TestRecorderConcurrent hammers one Recorder from 32 goroutines, each
// running its own client processes (and a few nemesis/observer events), and
// checks the file: index strictly 0..n-1 in file order, times non-decreasing,
// every line valid JSON, every event as Record returned it, the operation
// model held per process, and the Reader accepts it.
func TestRecorderConcurrent(t *testing.T) {
	const goroutines = 32
	opsPer := 300
	if testing.Short() {
		opsPer = 100
	}
	rec, path := newFileRecorder(t)

	var (
		mu       sync.Mutex
		returned = map[int64]Event{}
		pids     = map[int]bool{}
	)
	var wg sync.WaitGroup
	errc := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			var mine []Event
			var myPIDs []int
			newProc := func() int {
				p := rec.NewProcess()
				myPIDs = append(myPIDs, p)
				return p
			}
			p := newProc()
			for i := 0; i < opsPer; i++ {
				v := SendValue{Topic: "t", Partition: int32(g % 3), Value: fmt.Sprintf("%d-%d", g, i)}
				e, err := rec.Invoke(p, FSend, v)
				if err != nil {
					errc <- fmt.Errorf("goroutine %d invoke: %w", g, err)
					return
				}
				mine = append(mine, e)
				typ := []Type{OK, OK, OK, Fail, Info}[rng.Intn(5)]
				if typ == OK {
					off := int64(i)
					v.Offset = &off
				}
				e, err = rec.Complete(p, typ, FSend, v, "")
				if err != nil {
					errc <- fmt.Errorf("goroutine %d complete: %w", g, err)
					return
				}
				mine = append(mine, e)
				if typ == Info {
					p = newProc()
				}
				switch {
				case g == 0 && i%10 == 0:
					e, err = rec.Record(NemesisProcess, Info, "kill", NemesisValue{Fault: "kill", Nodes: []int32{1}}, "")
				case g == 1 && i%10 == 0:
					e, err = rec.Record(ObserverProcess, Info, FObserve, ObserveValue{Topic: "t", Leader: 1}, "")
				default:
					continue
				}
				if err != nil {
					errc <- fmt.Errorf("goroutine %d: %w", g, err)
					return
				}
				mine = append(mine, e)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, e := range mine {
				if _, dup := returned[e.Index]; dup {
					errc <- fmt.Errorf("index %d returned twice", e.Index)
					return
				}
				returned[e.Index] = e
			}
			for _, p := range myPIDs {
				if pids[p] {
					errc <- fmt.Errorf("NewProcess handed out %d twice", p)
					return
				}
				pids[p] = true
			}
		}(g)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	n := rec.Len()
	if err := rec.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if int64(len(returned)) != n {
		t.Fatalf("Len = %d, but %d events returned", n, len(returned))
	}

	lines, tail := fileLines(t, path)
	if len(tail) != 0 {
		t.Fatalf("file ends without a newline: %q", tail)
	}
	if int64(len(lines)) != n {
		t.Fatalf("file has %d lines, want %d", len(lines), n)
	}
	var lastTime int64 = -1
	open := map[int]string{}
	retired := map[int]bool{}
	for i, line := range lines {
		if !json.Valid(line) {
			t.Fatalf("line %d is not valid JSON: %q", i+1, line)
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if e.Index != int64(i) {
			t.Fatalf("line %d has index %d, want %d", i+1, e.Index, i)
		}
		if e.Time < lastTime {
			t.Fatalf("line %d: time %d < previous %d", i+1, e.Time, lastTime)
		}
		lastTime = e.Time
		if r := returned[e.Index]; !sameEvent(r, e) {
			t.Fatalf("line %d is %+v, Record returned %+v", i+1, e, r)
		}
		if e.Process < 0 {
			continue
		}
		if retired[e.Process] {
			t.Fatalf("line %d: retired process %d records again", i+1, e.Process)
		}
		if e.Type == Invoke {
			if f, ok := open[e.Process]; ok {
				t.Fatalf("line %d: process %d invokes while %s is open", i+1, e.Process, f)
			}
			open[e.Process] = e.F
			continue
		}
		if open[e.Process] != e.F {
			t.Fatalf("line %d: process %d completes %s, open op %q", i+1, e.Process, e.F, open[e.Process])
		}
		delete(open, e.Process)
		if e.Type == Info {
			retired[e.Process] = true
		}
	}
	if len(open) != 0 {
		t.Fatalf("ops left open: %v", open)
	}

	events, truncated, err := ReadFile(path)
	if err != nil || truncated {
		t.Fatalf("ReadFile: %d events, truncated=%v, err=%v", len(events), truncated, err)
	}
	if int64(len(events)) != n {
		t.Fatalf("ReadFile: %d events, want %d", len(events), n)
	}
	for _, e := range events {
		if !sameEvent(e, returned[e.Index]) {
			t.Fatalf("read back %+v, recorded %+v", e, returned[e.Index])
		}
	}
}

// TestRecorderFlushInterval: a client event reaches the file within
// FlushInterval (plus scheduling slack) with no Close and no Flush, read
// while the recorder is live; and the flusher keeps doing so afterwards.
func TestRecorderFlushInterval(t *testing.T) {
	const slack = 250 * time.Millisecond
	rec, path := newFileRecorder(t)
	p := rec.NewProcess()
	for round, typ := range []Type{Invoke, OK, Invoke} {
		start := time.Now()
		var v any = SendValue{Topic: "t", Value: fmt.Sprint(round)}
		if _, err := rec.Record(p, typ, FSend, v, ""); err != nil {
			t.Fatal(err)
		}
		want := round + 1
		for {
			events, truncated, err := ReadFile(path)
			if err != nil {
				t.Fatalf("round %d: reading the live history: %v", round, err)
			}
			if len(events) == want && !truncated {
				break
			}
			if time.Since(start) > flushInterval+slack {
				t.Fatalf("round %d: after %v the file holds %d events (truncated=%v), want %d",
					round, time.Since(start), len(events), truncated, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// TestRecorderNemesisFlushedAtOnce: a nemesis event, and any client event
// buffered before it, is in the file as soon as Record returns.
func TestRecorderNemesisFlushedAtOnce(t *testing.T) {
	for _, typ := range []Type{Invoke, Info, OK, Fail} {
		t.Run(string(typ), func(t *testing.T) {
			rec, path := newFileRecorder(t)
			p := rec.NewProcess()
			// Repeat so that the periodic flusher cannot make the test pass
			// by luck every time.
			for i := 0; i < 20; i++ {
				mustRecord(t, rec, p, Invoke, FPoll, ReadRequest{Topic: "t", Partitions: []int32{0}}, "")
				mustRecord(t, rec, p, Fail, FPoll, nil, "timeout")
				e := mustRecord(t, rec, NemesisProcess, typ, "pause", NemesisValue{Fault: "pause", Nodes: []int32{2}}, "")
				lines, tail := fileLines(t, path)
				if len(tail) != 0 || int64(len(lines)) != e.Index+1 {
					t.Fatalf("iteration %d: right after the nemesis Record the file has %d full lines and %d stray bytes, want %d lines",
						i, len(lines), len(tail), e.Index+1)
				}
				var got Event
				if err := json.Unmarshal(lines[len(lines)-1], &got); err != nil || !sameEvent(got, e) {
					t.Fatalf("last line %s (err %v), want the nemesis event %+v", lines[len(lines)-1], err, e)
				}
			}
		})
	}
}

// TestRecorderClose: Close flushes, then syncs, then closes the file; later
// records fail with ErrClosed; Close is idempotent.
func TestRecorderClose(t *testing.T) {
	rec, path := newFileRecorder(t)
	p := rec.NewProcess()
	mustRecord(t, rec, p, Invoke, FSend, SendValue{Topic: "t", Value: "a"}, "")
	mustRecord(t, rec, p, Info, FSend, nil, "timeout")

	syncs := 0
	realSync := rec.sync
	rec.sync = func() error {
		syncs++
		// By the time the file is synced, every event must have been
		// written to it.
		if lines, tail := fileLines(t, path); len(lines) != 2 || len(tail) != 0 {
			t.Errorf("at sync the file has %d lines + %q, want 2 lines", len(lines), tail)
		}
		return realSync()
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if syncs != 1 {
		t.Fatalf("Close synced %d times, want 1", syncs)
	}
	if _, err := rec.file.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("file still open after Close (Stat: %v)", err)
	}

	q := rec.NewProcess()
	attempts := map[string]func() error{
		"Invoke":         func() error { _, err := rec.Invoke(q, FSend, nil); return err },
		"Complete":       func() error { _, err := rec.Complete(p, OK, FSend, nil, ""); return err },
		"Record nemesis": func() error { _, err := rec.Record(NemesisProcess, Info, "kill", nil, ""); return err },
		"Record observer": func() error {
			_, err := rec.Record(ObserverProcess, Info, FObserve, nil, "")
			return err
		},
	}
	for name, do := range attempts {
		if err := do(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if syncs != 1 {
		t.Fatalf("second Close synced again")
	}
	if err := rec.Flush(); err != nil {
		t.Fatalf("Flush after Close: %v", err)
	}
	if n := rec.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	events, truncated, err := ReadFile(path)
	if err != nil || truncated || len(events) != 2 {
		t.Fatalf("ReadFile: %d events, truncated=%v, err=%v", len(events), truncated, err)
	}
}

// TestRecorderCloseSyncError: a failed sync is Close's error, for every
// caller, including concurrent ones (run with -race).
func TestRecorderCloseSyncError(t *testing.T) {
	rec, _ := newFileRecorder(t)
	boom := errors.New("sync failed")
	rec.sync = func() error {
		time.Sleep(10 * time.Millisecond) // let the other Closes arrive
		return boom
	}
	mustRecord(t, rec, NemesisProcess, Info, "kill", nil, "")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = rec.Close()
			rec.Flush()
			rec.Len()
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, boom) {
			t.Errorf("Close #%d: %v, want %v", i, err, boom)
		}
	}
	if err := rec.Close(); !errors.Is(err, boom) {
		t.Errorf("Close after the fact: %v, want %v", err, boom)
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct {
	n   int
	err error
	buf bytes.Buffer
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.n {
		k := w.n - w.buf.Len()
		w.buf.Write(p[:k])
		return k, w.err
	}
	return w.buf.Write(p)
}

// TestRecorderWriteErrorSticky: once writing fails, every later Record and
// Close report it.
func TestRecorderWriteErrorSticky(t *testing.T) {
	boom := errors.New("disk full")
	rec := NewRecorder(&failWriter{n: 10, err: boom})
	// The nemesis event is flushed at once, so its write error shows now.
	if _, err := rec.Record(NemesisProcess, Info, "kill", NemesisValue{Fault: "kill"}, ""); !errors.Is(err, boom) {
		t.Fatalf("Record: %v, want %v", err, boom)
	}
	p := rec.NewProcess()
	if _, err := rec.Invoke(p, FSend, nil); !errors.Is(err, boom) {
		t.Fatalf("Invoke after write error: %v, want %v", err, boom)
	}
	if err := rec.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush: %v, want %v", err, boom)
	}
	if err := rec.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v, want %v", err, boom)
	}
}

// TestRecorderPlainWriter: NewRecorder on an io.Writer; Close flushes it.
func TestRecorderPlainWriter(t *testing.T) {
	var buf bytes.Buffer
	rec := NewRecorder(&buf)
	p := rec.NewProcess()
	mustRecord(t, rec, p, Invoke, FSend, SendValue{Topic: "t", Value: "v"}, "")
	mustRecord(t, rec, ObserverProcess, Info, FObserve, ObserveValue{Topic: "t"}, "")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	events, truncated, err := ReadAll(&buf)
	if err != nil || truncated || len(events) != 2 {
		t.Fatalf("ReadAll: %d events, truncated=%v, err=%v", len(events), truncated, err)
	}
}

// TestRecorderEvent checks what Record returns and writes: the fields, the
// value encoding, and that a raw value is written on one line exactly as
// Record returned it.
func TestRecorderEvent(t *testing.T) {
	off := int64(0)
	tests := []struct {
		name      string
		value     any
		wantValue string // "" = no value field
	}{
		{"nil", nil, ""},
		{"struct", SendValue{Topic: "t", Partition: 2, Value: "v1", Offset: &off},
			`{"topic":"t","partition":2,"value":"v1","offset":0}`},
		{"map", map[string]int{"b": 2, "a": 1}, `{"a":1,"b":2}`},
		{"raw", json.RawMessage(`{"x":1}`), `{"x":1}`},
		{"raw multiline", json.RawMessage("{\n  \"x\": [1,\n 2],\n  \"y\": \"a\\nb\"\n}\n"), `{"x":[1,2],"y":"a\nb"}`},
		{"raw html", json.RawMessage(`{"v":"<&>"}`), `{"v":"\u003c\u0026\u003e"}`},
		{"string with newline", "a\nb", `"a\nb"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, path := newFileRecorder(t)
			before := rec.Elapsed()
			e := mustRecord(t, rec, NemesisProcess, Info, "set-config", tc.value, "oops\n")
			after := rec.Elapsed()
			if e.Index != 0 || e.Process != NemesisProcess || e.Type != Info || e.F != "set-config" || e.Error != "oops\n" {
				t.Fatalf("event %+v", e)
			}
			if time.Duration(e.Time) < before || time.Duration(e.Time) > after {
				t.Fatalf("time %v outside [%v, %v]", time.Duration(e.Time), before, after)
			}
			if string(e.Value) != tc.wantValue {
				t.Fatalf("Value = %s, want %s", e.Value, tc.wantValue)
			}
			lines, tail := fileLines(t, path)
			if len(lines) != 1 || len(tail) != 0 {
				t.Fatalf("file has %d lines + %q, want one line", len(lines), tail)
			}
			var got Event
			if err := json.Unmarshal(lines[0], &got); err != nil {
				t.Fatal(err)
			}
			if !sameEvent(got, e) {
				t.Fatalf("file has %s, Record returned %+v", lines[0], e)
			}
			if tc.wantValue == "" && bytes.Contains(lines[0], []byte(`"value"`)) {
				t.Fatalf("nil value written: %s", lines[0])
			}
		})
	}
}

// TestRecorderRejects: events the Recorder must refuse, leaving no line in
// the file, no gap in the indexes and no change to the operation model.
func TestRecorderRejects(t *testing.T) {
	tests := []struct {
		name    string
		process int
		typ     Type
		f       string
		value   any
	}{
		{"bad type", 0, Type("done"), FSend, nil},
		{"empty type", NemesisProcess, Type(""), "kill", nil},
		{"missing f", 0, Invoke, "", nil},
		{"missing f nemesis", NemesisProcess, Info, "", nil},
		{"process -3", -3, Info, "kill", nil},
		{"unencodable value", 0, Invoke, FSend, func() {}},
		{"invalid raw value", 0, Invoke, FSend, json.RawMessage(`{"x":`)},
		{"invalid raw info", 1, Info, FSend, json.RawMessage(`nope`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, path := newFileRecorder(t)
			p0, p1 := rec.NewProcess(), rec.NewProcess()
			mustRecord(t, rec, p1, Invoke, FSend, nil, "") // p1 has an open send
			if _, err := rec.Record(tc.process, tc.typ, tc.f, tc.value, ""); err == nil {
				t.Fatalf("Record(%d, %q, %q, %v) succeeded", tc.process, tc.typ, tc.f, tc.value)
			}
			// The refusal changed nothing: p0 may invoke, p1 may complete
			// and then invoke again, and the indexes run on.
			if e := mustRecord(t, rec, p0, Invoke, FSend, nil, ""); e.Index != 1 {
				t.Fatalf("next index %d, want 1", e.Index)
			}
			mustRecord(t, rec, p1, OK, FSend, nil, "")
			mustRecord(t, rec, p1, Invoke, FSend, nil, "")
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			events, truncated, err := ReadFile(path)
			if err != nil || truncated || len(events) != 4 {
				t.Fatalf("ReadFile: %d events, truncated=%v, err=%v", len(events), truncated, err)
			}
		})
	}
}

// TestProcessModel drives the operation model through scripted steps.
func TestProcessModel(t *testing.T) {
	type step struct {
		process int
		typ     Type
		f       string
		wantErr error // nil: must succeed; errAny: any error
	}
	errAny := errors.New("any error")
	tests := []struct {
		name  string
		steps []step
	}{
		{"invoke ok invoke", []step{{0, Invoke, FSend, nil}, {0, OK, FSend, nil}, {0, Invoke, FPoll, nil}}},
		{"invoke fail invoke", []step{{0, Invoke, FSend, nil}, {0, Fail, FSend, nil}, {0, Invoke, FSend, nil}}},
		{"invoke after info", []step{{0, Invoke, FSend, nil}, {0, Info, FSend, nil}, {0, Invoke, FSend, errRetired}}},
		{"completion after info", []step{{3, Invoke, FPoll, nil}, {3, Info, FPoll, nil}, {3, OK, FPoll, errAny}}},
		{"info retires only that process", []step{
			{0, Invoke, FSend, nil}, {1, Invoke, FSend, nil}, {0, Info, FSend, nil},
			{1, OK, FSend, nil}, {1, Invoke, FSend, nil}, {0, Invoke, FSend, errRetired}}},
		{"double invoke", []step{{0, Invoke, FSend, nil}, {0, Invoke, FSend, errAny}, {0, OK, FSend, nil}}},
		{"double invoke other f", []step{{0, Invoke, FSend, nil}, {0, Invoke, FPoll, errAny}, {0, OK, FSend, nil}}},
		{"ok without invoke", []step{{0, OK, FSend, errAny}}},
		{"fail without invoke", []step{{0, Fail, FSend, errAny}}},
		{"info without invoke", []step{{0, Info, FSend, errAny}, {0, Invoke, FSend, nil}}},
		{"double completion", []step{{0, Invoke, FSend, nil}, {0, OK, FSend, nil}, {0, OK, FSend, errAny}}},
		{"completion with other f", []step{{0, Invoke, FSend, nil}, {0, OK, FPoll, errAny}, {0, Info, FFinalRead, errAny}, {0, OK, FSend, nil}}},
		{"processes are independent", []step{{0, Invoke, FSend, nil}, {1, Invoke, FPoll, nil}, {1, OK, FPoll, nil}, {0, OK, FSend, nil}}},
		{"nemesis unconstrained", []step{
			{NemesisProcess, Invoke, "kill", nil}, {NemesisProcess, Invoke, "partition", nil},
			{NemesisProcess, OK, "heal", nil}, {NemesisProcess, Info, "kill", nil},
			{NemesisProcess, Invoke, "start", nil}, {NemesisProcess, Fail, "start", nil}, {NemesisProcess, Fail, "start", nil}}},
		{"observer unconstrained", []step{
			{ObserverProcess, Info, FObserve, nil}, {ObserverProcess, Info, FObserve, nil},
			{ObserverProcess, Invoke, FObserve, nil}, {ObserverProcess, Invoke, FObserve, nil}, {ObserverProcess, OK, "other", nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, path := newFileRecorder(t)
			written := 0
			for i, s := range tc.steps {
				var err error
				if s.typ == Invoke {
					_, err = rec.Invoke(s.process, s.f, nil)
				} else {
					_, err = rec.Complete(s.process, s.typ, s.f, nil, "")
				}
				switch {
				case s.wantErr == nil && err != nil:
					t.Fatalf("step %d %+v: %v", i, s, err)
				case s.wantErr != nil && err == nil:
					t.Fatalf("step %d %+v succeeded, want an error", i, s)
				case s.wantErr != nil && s.wantErr != errAny && !errors.Is(err, s.wantErr):
					t.Fatalf("step %d %+v: %v, want %v", i, s, err, s.wantErr)
				}
				if err == nil {
					written++
				}
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			events, _, err := ReadFile(path)
			if err != nil || len(events) != written {
				t.Fatalf("file has %d events (err %v), want %d", len(events), err, written)
			}
		})
	}
}

func TestCompleteRejectsInvoke(t *testing.T) {
	rec, _ := newFileRecorder(t)
	p := rec.NewProcess()
	if _, err := rec.Complete(p, Invoke, FSend, nil, ""); err == nil {
		t.Fatal("Complete with type invoke succeeded")
	}
	if n := rec.Len(); n != 0 {
		t.Fatalf("Len = %d, want 0", n)
	}
}

// TestNewProcess: fresh ids 0, 1, 2, ..., never one a client already used.
func TestNewProcess(t *testing.T) {
	rec, _ := newFileRecorder(t)
	for want := 0; want < 3; want++ {
		if p := rec.NewProcess(); p != want {
			t.Fatalf("NewProcess = %d, want %d", p, want)
		}
	}
	// A client that picks its own id moves NewProcess past it.
	mustRecord(t, rec, 10, Invoke, FSend, nil, "")
	if p := rec.NewProcess(); p != 11 {
		t.Fatalf("after process 10 invoked, NewProcess = %d, want 11", p)
	}
	// Nemesis and observer events do not.
	mustRecord(t, rec, NemesisProcess, Info, "kill", nil, "")
	mustRecord(t, rec, ObserverProcess, Info, FObserve, nil, "")
	if p := rec.NewProcess(); p != 12 {
		t.Fatalf("NewProcess = %d, want 12", p)
	}
	// A retired process's replacement is fresh.
	mustRecord(t, rec, 12, Invoke, FSend, nil, "")
	mustRecord(t, rec, 12, Info, FSend, nil, "timeout")
	p := rec.NewProcess()
	if p == 12 {
		t.Fatal("NewProcess reused a retired id")
	}
	mustRecord(t, rec, p, Invoke, FSend, nil, "")
}

func TestRecorderTimes(t *testing.T) {
	rec, _ := newFileRecorder(t)
	if d := time.Since(rec.Start()); d < 0 || d > time.Minute {
		t.Fatalf("Start is %v ago", d)
	}
	e1 := mustRecord(t, rec, NemesisProcess, Info, "kill", nil, "")
	time.Sleep(2 * time.Millisecond)
	e2 := mustRecord(t, rec, NemesisProcess, Info, "start", nil, "")
	if e2.Time-e1.Time < int64(2*time.Millisecond) {
		t.Fatalf("times %d, %d: less than the 2ms slept between them", e1.Time, e2.Time)
	}
	if el := rec.Elapsed(); int64(el) < e2.Time {
		t.Fatalf("Elapsed %d < last event time %d", el, e2.Time)
	}
}

// BenchmarkRecordSend measures recording one send: its invoke and its ok
// completion, to a file.
func BenchmarkRecordSend(b *testing.B) {
	rec, _ := newFileRecorder(b)
	p := rec.NewProcess()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v := SendValue{Topic: "kchaos", Partition: int32(i % 6), Value: "v-0000000000"}
		if _, err := rec.Invoke(p, FSend, v); err != nil {
			b.Fatal(err)
		}
		off := int64(i)
		v.Offset = &off
		if _, err := rec.Complete(p, OK, FSend, v, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
}

// gateWriter blocks every write until open is closed, as a disk under
// writeback throttling does.
type gateWriter struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (w *gateWriter) Write(p []byte) (int, error) {
	<-w.open
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestRecorderSlowDisk: a client's Record never waits on the file, only
// on memory: with every write blocked, Records go on until maxPending
// bytes wait, then wait (backpressure, nothing dropped); once the writes
// go through, every event is in the file, in index order.
func TestRecorderSlowDisk(t *testing.T) {
	w := &gateWriter{open: make(chan struct{})}
	rec := NewRecorder(w)
	p := rec.NewProcess()
	v := SendValue{Topic: "kchaos", Value: strings.Repeat("v", 100)}
	var n atomic.Int64
	stuck := make(chan struct{})
	go func() {
		defer close(stuck)
		for i := 0; ; i++ {
			typ := Invoke
			if i%2 == 1 {
				typ = OK
			}
			if _, err := rec.Record(p, typ, FSend, v, ""); err != nil {
				return
			}
			n.Add(1)
			if n.Load() > 2*maxPending/100 {
				return // never held back: the test fails below
			}
		}
	}()
	// The writes are blocked: Records go on in memory up to maxPending.
	deadline := time.Now().Add(10 * time.Second)
	last := int64(-1)
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		if c := n.Load(); c == last {
			break
		} else {
			last = c
		}
	}
	perEvent := int64(len(`{"index":1000,"time":1000000000,"process":0,"type":"invoke","f":"send","value":{"topic":"kchaos","partition":0,"value":""}}`) + 100)
	if c := n.Load(); c < maxPending/(2*perEvent) || c > 2*maxPending/100 {
		t.Fatalf("%d events recorded with the disk blocked: want them held back near %d bytes of history", c, maxPending)
	}
	close(w.open) // released, the Records go on to the goroutine's limit
	<-stuck
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	events, truncated, err := ReadAll(&w.buf)
	if err != nil || truncated {
		t.Fatalf("ReadAll: truncated=%v, err=%v", truncated, err)
	}
	if int64(len(events)) < n.Load() {
		t.Fatalf("%d events in the file, %d recorded", len(events), n.Load())
	}
	for i, e := range events {
		if e.Index != int64(i) {
			t.Fatalf("event %d has index %d", i, e.Index)
		}
	}
}
