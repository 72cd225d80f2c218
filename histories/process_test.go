package histories

import (
	"errors"
	"testing"
)

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
