package histories

import (
	"bytes"
	"testing"
)

// TestRecorderTap: a tap is told the nemesis's and the observer's events,
// in index order, with their values, and never a client's; a refused
// event is not told.
func TestRecorderTap(t *testing.T) {
	rec := NewRecorder(&bytes.Buffer{})
	var told []Event
	rec.Tap(func(e Event) { told = append(told, e) })
	p := rec.NewProcess()
	mustRecord(t, rec, p, Invoke, FSend, SendValue{Topic: "t", Value: "v"}, "")
	mustRecord(t, rec, ObserverProcess, Info, FObserve, ObserveValue{Topic: "t", Leader: 2}, "")
	mustRecord(t, rec, NemesisProcess, Invoke, FKill, NemesisValue{Fault: FKill, Nodes: []int32{2}}, "")
	if _, err := rec.Record(NemesisProcess, "bad", FKill, nil, ""); err == nil {
		t.Fatal("a bad event type was recorded")
	}
	mustRecord(t, rec, p, OK, FSend, SendValue{Topic: "t", Value: "v"}, "")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if len(told) != 2 || told[0].F != FObserve || told[1].F != FKill || told[0].Index != 1 || told[1].Index != 2 {
		t.Fatalf("told %+v, want the observe (index 1) then the kill (index 2)", told)
	}
	var v ObserveValue
	if err := told[0].Decode(&v); err != nil || v.Leader != 2 {
		t.Errorf("the observe's value: %+v, %v", v, err)
	}
}
