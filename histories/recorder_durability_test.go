package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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
