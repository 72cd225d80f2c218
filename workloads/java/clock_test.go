package java

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// TestJavaEventsOneClock: the java driver's ops and kchaos's own events
// (a fault the nemesis records while a send is in the JVM) land in one
// history in the order they happened, on one clock. The JVM only moves
// records; the Go loop records each op's invoke before it asks the JVM
// and its completion after the JVM's answer, with the recorder's clock,
// so a fault recorded between the two sits between them by index and by
// time, and times never go back as indexes go up.
func TestJavaEventsOneClock(t *testing.T) {
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	var faulted atomic.Bool
	fake := &fakeJVM{}
	// The 10th send's answer waits until the nemesis has recorded its
	// fault: the send is in flight in the JVM when the fault happens.
	fake.hook = func(req map[string]any, reply func(map[string]any)) bool {
		if req["op"] != "send" || fake.sends != 9 {
			return false
		}
		fake.sends++
		p := int32(num(req["partition"]))
		if fake.log == nil {
			fake.log = map[int32][]string{}
		}
		off := len(fake.log[p])
		fake.log[p] = append(fake.log[p], req["value"].(string))
		go func() {
			time.Sleep(20 * time.Millisecond)
			if _, err := rec.Record(histories.NemesisProcess, histories.Info, "pause", histories.NemesisValue{Fault: "pause", Nodes: []int32{0}}, ""); err != nil {
				t.Error(err)
			}
			faulted.Store(true)
			time.Sleep(20 * time.Millisecond)
			reply(map[string]any{"offset": off})
		}()
		return true
	}
	startFakeJVM(t, fake)
	cfg := workloads.Config{Driver: workloads.DriverJava, ClientVersion: "4.1.2", Producers: 1, MaxInFlight: 1, Partitions: 1, Duration: workloads.Duration(time.Minute)}
	cfg.Defaults()
	w, err := workloads.NewWithDriver(cfg, javaDriver{}, []string{"fake:9092"}, rec, 20)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !faulted.Load() {
		t.Fatal("the fault was never recorded")
	}
	evs := workloadstest.ReadBack(t, rec, &buf)
	var last int64
	fault, invoke, done := -1, -1, -1
	for i, e := range evs {
		if e.Time < last {
			t.Errorf("event %d at %d ns after one at %d ns", e.Index, e.Time, last)
		}
		last = e.Time
		if e.Process == histories.NemesisProcess {
			fault = i
			continue
		}
		if e.F != histories.FSend {
			continue
		}
		var v histories.SendValue
		if err := json.Unmarshal(e.Value, &v); err != nil {
			t.Fatal(err)
		}
		if fault < 0 && e.Type == histories.Invoke {
			invoke = i // the last send invoked before the fault
		}
		if fault >= 0 && done < 0 && e.Type == histories.OK {
			done = i // the first send completed after it
		}
	}
	if fault < 0 || invoke < 0 || done < 0 {
		t.Fatalf("fault at %d, send invoked at %d, completed at %d", fault, invoke, done)
	}
	if !(invoke < fault && fault < done) || evs[done].Process != evs[invoke].Process {
		t.Errorf("the send in flight (invoke %d, ok %d) does not enclose the fault (%d)", invoke, done, fault)
	}
	if d := evs[done].Time - evs[fault].Time; d < int64(10*time.Millisecond) {
		t.Errorf("the send completed %d ns after the fault; the JVM answered 20 ms after it", d)
	}
}
