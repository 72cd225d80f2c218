package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// good is a valid history line with the given index.
func good(i int) string {
	return fmt.Sprintf(`{"index":%d,"time":%d,"process":-1,"type":"info","f":"kill","value":{"nodes":[1]}}`, i, 10*i)
}

// history joins lines, each followed by a newline.
func history(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

type readOutcome struct {
	events    []Event
	truncated bool
	tornLine  int
	lines     int
	err       error
}

// readAllNext drains a Reader with Next, as the checker does.
func readAllNext(in io.Reader) readOutcome {
	rd := NewReader(in)
	var out readOutcome
	for {
		e, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				out.err = err
			}
			break
		}
		out.events = append(out.events, e)
	}
	out.truncated, out.tornLine, out.lines = rd.Truncated(), rd.TornLine(), rd.Lines()
	return out
}

func TestReaderAccepts(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		events    int
		truncated bool
		tornLine  int
		lines     int
	}{
		{"empty", "", 0, false, 0, 0},
		{"one line", history(good(0)), 1, false, 0, 1},
		{"three lines", history(good(0), good(1), good(2)), 3, false, 0, 3},
		{"last line without newline is complete", history(good(0), good(1)) + good(2), 3, false, 0, 3},
		{"only line without newline", good(0), 1, false, 0, 1},
		{"last line without newline, trailing spaces", history(good(0)) + good(1) + " \t", 2, false, 0, 2},
		{"torn last line", history(good(0), good(1)) + `{"index":2,"time":20,"proc`, 2, true, 3, 3},
		{"torn only line", `{"index":0,"ti`, 0, true, 1, 1},
		{"torn after a blank line", history(good(0), "") + `{"index":1`, 1, true, 3, 3},
		{"torn to one byte", history(good(0)) + `{`, 1, true, 2, 2},
		{"blank lines", history("", good(0), "", "", good(1), "   ", "\t", good(2), ""), 3, false, 0, 9},
		{"blank lines only", "\n\n  \n", 0, false, 0, 3},
		{"blank last line without newline", history(good(0)) + "   ", 1, false, 0, 2},
		{"CRLF", good(0) + "\r\n" + good(1) + "\r\n", 2, false, 0, 2},
		{"indented", "  " + good(0) + "\n\t" + good(1) + "  \n", 2, false, 0, 2},
		{"unknown top-level field", history(`{"index":0,"time":0,"process":0,"type":"invoke","f":"send","extra":[1]}`), 1, false, 0, 1},
		{"observer and client", history(
			`{"index":0,"time":1,"process":-2,"type":"info","f":"observe"}`,
			`{"index":1,"time":1,"process":7,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}`,
			`{"index":2,"time":5,"process":7,"type":"fail","f":"send","error":"NOT_ENOUGH_REPLICAS"}`),
			3, false, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, wrap := range []struct {
				name string
				fn   func(io.Reader) io.Reader
			}{
				{"plain", func(r io.Reader) io.Reader { return r }},
				{"one byte at a time", iotest.OneByteReader},
				{"data with EOF", iotest.DataErrReader},
			} {
				got := readAllNext(wrap.fn(strings.NewReader(tc.input)))
				if got.err != nil {
					t.Fatalf("%s: error %v", wrap.name, got.err)
				}
				if len(got.events) != tc.events || got.truncated != tc.truncated || got.tornLine != tc.tornLine || got.lines != tc.lines {
					t.Fatalf("%s: %d events, truncated=%v, TornLine=%d, Lines=%d; want %d, %v, %d, %d",
						wrap.name, len(got.events), got.truncated, got.tornLine, got.lines,
						tc.events, tc.truncated, tc.tornLine, tc.lines)
				}
				for i, e := range got.events {
					if e.Index != int64(i) {
						t.Fatalf("%s: event %d has index %d", wrap.name, i, e.Index)
					}
				}
			}
			// ReadAll agrees.
			events, truncated, err := ReadAll(strings.NewReader(tc.input))
			if err != nil || len(events) != tc.events || truncated != tc.truncated {
				t.Fatalf("ReadAll: %d events, truncated=%v, err=%v", len(events), truncated, err)
			}
		})
	}
}

// TestReaderTornEveryPrefix: a crash can tear the last line after any byte;
// every such prefix is accepted as torn.
func TestReaderTornEveryPrefix(t *testing.T) {
	last := `{"index":2,"time":123456789,"process":-2,"type":"info","f":"observe",` +
		`"value":{"topic":"t","isr":[1,2,3],"ok":true,"no":false,"nil":null,"f":-1.5e3,` +
		`"s":"é✓ \"q\" \\ \u00e9 \n","log_end_offsets":{"1":10,"2":9}},"error":"x"}`
	if !json.Valid([]byte(last)) {
		t.Fatal("test line is not valid JSON")
	}
	prefix := history(good(0), good(1))
	for k := 1; k < len(last); k++ {
		got := readAllNext(strings.NewReader(prefix + last[:k]))
		if got.err != nil || len(got.events) != 2 || !got.truncated || got.tornLine != 3 {
			t.Fatalf("torn after %d bytes (%q): %d events, truncated=%v, TornLine=%d, err=%v",
				k, last[:k], len(got.events), got.truncated, got.tornLine, got.err)
		}
	}
	// And whole, it is a complete last line.
	got := readAllNext(strings.NewReader(prefix + last))
	if got.err != nil || len(got.events) != 3 || got.truncated || got.tornLine != 0 {
		t.Fatalf("whole: %d events, truncated=%v, TornLine=%d, err=%v", len(got.events), got.truncated, got.tornLine, got.err)
	}
}

// TestReaderRejects: every malformed line is a *LineError naming its
// 1-based line number, wherever it is: in the middle, last with its
// newline, or last without one (a complete line that is wrong is not torn).
func TestReaderRejects(t *testing.T) {
	bad := []struct {
		name string
		line string // for index 2
		want string // in the error text
	}{
		{"not JSON", `not json`, "not a JSON event"},
		{"syntax error", `{"index":2,,"time":1}`, "not a JSON event"},
		{"unterminated then garbage", `{"index":2,"f":"kill"]`, "not a JSON event"},
		{"array", `[1,2]`, "not a JSON event"},
		{"string", `"hello"`, "not a JSON event"},
		{"null", `null`, "index"},
		{"empty object", `{}`, "index"},
		{"two values", good(2) + good(3), ""},
		{"trailing garbage", good(2) + ` x`, ""},
		{"index skips", good(3), "index 3, want 2"},
		{"index repeats", good(1), "index 1, want 2"},
		{"index negative", `{"index":-1,"time":0,"process":0,"type":"invoke","f":"send"}`, "index -1, want 2"},
		{"index is a string", `{"index":"2","time":0,"process":0,"type":"invoke","f":"send"}`, "not a JSON event"},
		{"index is a float", `{"index":2.5,"time":0,"process":0,"type":"invoke","f":"send"}`, "not a JSON event"},
		{"missing index", `{"time":0,"process":0,"type":"invoke","f":"send"}`, `missing field "index"`},
		{"bad type", `{"index":2,"time":0,"process":0,"type":"done","f":"send"}`, `type "done"`},
		{"type case", `{"index":2,"time":0,"process":0,"type":"OK","f":"send"}`, `type "OK"`},
		{"missing type", `{"index":2,"time":0,"process":0,"f":"send"}`, `missing field "type"`},
		{"type not a string", `{"index":2,"time":0,"process":0,"type":1,"f":"send"}`, "not a JSON event"},
		{"missing f", `{"index":2,"time":0,"process":0,"type":"invoke"}`, `missing field "f"`},
		{"empty f", `{"index":2,"time":0,"process":0,"type":"invoke","f":""}`, "missing f"},
		{"process -3", `{"index":2,"time":0,"process":-3,"type":"invoke","f":"send"}`, "process -3"},
		{"process is a string", `{"index":2,"time":0,"process":"a","type":"invoke","f":"send"}`, "not a JSON event"},
		{"negative time", `{"index":2,"time":-5,"process":0,"type":"invoke","f":"send"}`, "time -5"},
	}
	type position struct {
		name  string
		build func(badLine string) (string, int) // input, bad line number
	}
	positions := []position{
		{"middle", func(b string) (string, int) { return history(good(0), good(1), b, good(3)), 3 }},
		{"last", func(b string) (string, int) { return history(good(0), good(1), b), 3 }},
		{"last without newline", func(b string) (string, int) { return history(good(0), good(1)) + b, 3 }},
		{"after blank lines", func(b string) (string, int) { return history("", good(0), "", good(1), "  ", b, good(3)), 6 }},
		{"after blank lines, last without newline", func(b string) (string, int) { return history(good(0), "", good(1), "") + b, 5 }},
	}
	for _, bc := range bad {
		for _, pos := range positions {
			t.Run(bc.name+"/"+pos.name, func(t *testing.T) {
				input, wantLine := pos.build(bc.line)
				got := readAllNext(strings.NewReader(input))
				var le *LineError
				if !errors.As(got.err, &le) {
					t.Fatalf("got %d events, truncated=%v, err=%v; want a *LineError", len(got.events), got.truncated, got.err)
				}
				if le.Line != wantLine {
					t.Fatalf("LineError.Line = %d, want %d (%v)", le.Line, wantLine, le)
				}
				if !strings.Contains(le.Error(), fmt.Sprintf("line %d:", wantLine)) || !strings.Contains(le.Error(), bc.want) {
					t.Fatalf("error %q should name line %d and say %q", le.Error(), wantLine, bc.want)
				}
				if le.Unwrap() == nil {
					t.Fatal("LineError wraps no cause")
				}
				if len(got.events) != 2 || got.truncated {
					t.Fatalf("%d events before the error (truncated=%v), want 2", len(got.events), got.truncated)
				}
				// ReadAll returns the error and the events before it.
				events, truncated, err := ReadAll(strings.NewReader(input))
				if !errors.As(err, &le) || le.Line != wantLine || len(events) != 2 || truncated {
					t.Fatalf("ReadAll: %d events, truncated=%v, err=%v", len(events), truncated, err)
				}
			})
		}
	}
}

// A torn line that is followed by anything is corruption, not a crash.
func TestReaderTornLineNotLast(t *testing.T) {
	for name, input := range map[string]string{
		"torn then good":    history(good(0), `{"index":1,"ti`, good(1)),
		"torn then blank":   history(good(0), `{"index":1,"ti`, ""),
		"torn with newline": history(good(0), `{"index":1,"ti`),
	} {
		t.Run(name, func(t *testing.T) {
			got := readAllNext(strings.NewReader(input))
			var le *LineError
			if !errors.As(got.err, &le) || le.Line != 2 || got.truncated {
				t.Fatalf("err=%v truncated=%v, want a LineError at line 2", got.err, got.truncated)
			}
		})
	}
}

// After an error or the end, Next keeps saying so.
func TestReaderSticky(t *testing.T) {
	rd := NewReader(strings.NewReader(history(good(0), "bad", good(2), good(3))))
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	_, err1 := rd.Next()
	var le *LineError
	if !errors.As(err1, &le) || le.Line != 2 {
		t.Fatalf("second Next: %v, want LineError at line 2", err1)
	}
	for i := 0; i < 3; i++ {
		e, err := rd.Next()
		if !errors.As(err, &le) || le.Line != 2 {
			t.Fatalf("Next after the error returned %+v, %v; want the line 2 error again", e, err)
		}
	}

	rd = NewReader(strings.NewReader(history(good(0)) + `{"ind`))
	for i := 0; i < 3; i++ {
		rd.Next()
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("Next after the end: %v, want io.EOF", err)
	}
	if !rd.Truncated() || rd.TornLine() != 2 {
		t.Fatalf("Truncated=%v TornLine=%d after repeated EOF", rd.Truncated(), rd.TornLine())
	}
}

// An I/O error is returned as is: neither the end nor a torn line.
func TestReaderIOError(t *testing.T) {
	boom := errors.New("read failed")
	in := io.MultiReader(strings.NewReader(history(good(0))+good(1)[:10]), iotest.ErrReader(boom))
	got := readAllNext(in)
	if !errors.Is(got.err, boom) || len(got.events) != 1 || got.truncated {
		t.Fatalf("%d events, truncated=%v, err=%v; want 1 event then %v", len(got.events), got.truncated, got.err, boom)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, _, err := ReadFile(filepath.Join(t.TempDir(), "nope.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadFile of a missing file: %v", err)
	}
}

// TestRoundTrip records a history with every kind of event the contract
// names and reads it back: the same events, the same typed values, and
// fields the types do not know survive.
func TestRoundTrip(t *testing.T) {
	rec, path := newFileRecorder(t)
	o := func(v int64) *int64 { return &v }
	from := int64(0)
	type step struct {
		process int
		typ     Type
		f       string
		value   any
		err     string
		decode  func() any // a fresh value of the typed shape, or nil
	}
	p, c := 0, 1
	steps := []step{
		{p, Invoke, FSend, SendValue{Topic: "t", Partition: 1, Value: "v1 é✓ <&>"}, "", func() any { return new(SendValue) }},
		{p, OK, FSend, SendValue{Topic: "t", Partition: 1, Value: "v1 é✓ <&>", Offset: o(0)}, "", func() any { return new(SendValue) }},
		{p, Invoke, FSend, SendValue{Topic: "t", Partition: 2, Value: "v2", Key: "k"}, "", func() any { return new(SendValue) }},
		{p, Info, FSend, nil, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", nil},
		{NemesisProcess, Invoke, "partition", NemesisValue{Fault: "partition", Nodes: []int32{1, 2},
			Details: map[string]any{"groups": []any{[]any{1.0}, []any{2.0, 3.0}}, "seed": 42.0}}, "", func() any { return new(NemesisValue) }},
		{c, Invoke, FPoll, ReadRequest{Topic: "t", Partitions: []int32{0, 1}}, "", func() any { return new(ReadRequest) }},
		{c, OK, FPoll, ReadResult{Topic: "t", Records: []Record{{Partition: 1, Offset: 0, Value: "v1 é✓ <&>", LeaderEpoch: 3}}}, "", func() any { return new(ReadResult) }},
		{c, Invoke, FAssign, AssignValue{Topic: "t", Partitions: []int32{0, 1}, Offsets: map[string]int64{"0": 0, "1": 5}}, "", func() any { return new(AssignValue) }},
		{c, OK, FAssign, AssignValue{Topic: "t", Partitions: []int32{0, 1}, Offsets: map[string]int64{"0": 0, "1": 5}}, "", func() any { return new(AssignValue) }},
		{ObserverProcess, Info, FObserve, ObserveValue{Topic: "t", Partition: 1, Leader: 2, LeaderEpoch: 4,
			ISR: []int32{2, 3}, ELR: []int32{1}, LastKnownELR: []int32{}, HighWatermark: 1,
			LogEndOffsets: map[string]int64{"2": 1, "3": 1}}, "", func() any { return new(ObserveValue) }},
		{NemesisProcess, Info, "heal", json.RawMessage(`{"fault":"heal","future_field":{"a":[1,2]}}`), "", nil},
		{c, Invoke, FFinalRead, ReadRequest{Topic: "t", Partitions: []int32{0, 1, 2}, From: &from}, "", func() any { return new(ReadRequest) }},
		{c, OK, FFinalRead, ReadResult{Topic: "t", Records: []Record{{Partition: 1, Offset: 0, Value: "v1 é✓ <&>", LeaderEpoch: 3}},
			EndOffsets: map[string]int64{"0": 0, "1": 1, "2": 0}, StartOffsets: map[string]int64{"0": 0, "1": 0, "2": 0}}, "", func() any { return new(ReadResult) }},
		{c + 1, Invoke, FSend, SendValue{Topic: "t", Value: "v3"}, "", nil},
		{c + 1, Fail, FSend, nil, "connection refused", nil},
	}
	var recorded []Event
	for _, s := range steps {
		recorded = append(recorded, mustRecord(t, rec, s.process, s.typ, s.f, s.value, s.err))
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	events, truncated, err := ReadFile(path)
	if err != nil || truncated {
		t.Fatalf("ReadFile: truncated=%v err=%v", truncated, err)
	}
	if len(events) != len(steps) {
		t.Fatalf("read %d events, recorded %d", len(events), len(steps))
	}
	for i, e := range events {
		if !sameEvent(e, recorded[i]) {
			t.Fatalf("event %d: read %+v (value %s), recorded %+v (value %s)", i, e, e.Value, recorded[i], recorded[i].Value)
		}
		s := steps[i]
		if e.Process != s.process || e.Type != s.typ || e.F != s.f || e.Error != s.err {
			t.Fatalf("event %d: %+v, want %+v", i, e, s)
		}
		if s.decode != nil {
			got := s.decode()
			if err := e.Decode(got); err != nil {
				t.Fatalf("event %d: Decode: %v", i, err)
			}
			if want := reflect.ValueOf(s.value); !reflect.DeepEqual(reflect.ValueOf(got).Elem().Interface(), want.Interface()) {
				t.Fatalf("event %d: decoded %+v, recorded %+v", i, reflect.ValueOf(got).Elem().Interface(), s.value)
			}
		}
		if s.value == nil && e.Value != nil {
			t.Fatalf("event %d: nil value read back as %s", i, e.Value)
		}
	}
	// The unknown field in the raw nemesis value survived.
	var heal map[string]any
	if err := events[10].Decode(&heal); err != nil || heal["future_field"] == nil {
		t.Fatalf("raw value read back as %v (err %v)", heal, err)
	}
	var nv NemesisValue
	if err := events[10].Decode(&nv); err != nil || nv.Fault != "heal" {
		t.Fatalf("raw value as NemesisValue: %+v (err %v)", nv, err)
	}
}

// TestReaderHugeLine: one event whose value is a 50 MB string is written by
// the Recorder and read back; and torn in its middle, it is a torn line.
func TestReaderHugeLine(t *testing.T) {
	const size = 50 << 20
	big := strings.Repeat("k", size-8) + "chaos\"\\\n" // some bytes JSON must escape
	rec, path := newFileRecorder(t)
	p := rec.NewProcess()
	mustRecord(t, rec, NemesisProcess, Info, "kill", nil, "")
	mustRecord(t, rec, p, Invoke, FSend, SendValue{Topic: "t", Partition: 0, Value: big}, "")
	mustRecord(t, rec, p, Fail, FSend, nil, "MESSAGE_TOO_LARGE")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := NewReader(f)
	var events []Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(events), err)
		}
		events = append(events, e)
	}
	if len(events) != 3 || rd.Truncated() || rd.Lines() != 3 {
		t.Fatalf("%d events, %d lines, truncated=%v; want 3, 3, false", len(events), rd.Lines(), rd.Truncated())
	}
	var sv SendValue
	if err := events[1].Decode(&sv); err != nil {
		t.Fatal(err)
	}
	if len(sv.Value) != len(big) || sv.Value != big {
		t.Fatalf("value read back has %d bytes, want %d (equal: %v)", len(sv.Value), len(big), sv.Value == big)
	}
	if events[2].Type != Fail || events[2].Error != "MESSAGE_TOO_LARGE" {
		t.Fatalf("event after the huge line: %+v", events[2])
	}
	sv.Value, events = "", nil

	// Tear the file in the middle of the huge line.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.IndexByte(b, '\n') + 1
	got := readAllNext(bytes.NewReader(b[:start+size/2]))
	if got.err != nil || len(got.events) != 1 || !got.truncated || got.tornLine != 2 {
		t.Fatalf("torn huge line: %d events, truncated=%v, TornLine=%d, err=%v", len(got.events), got.truncated, got.tornLine, got.err)
	}
}
