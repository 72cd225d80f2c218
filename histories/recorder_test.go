package histories

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
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
