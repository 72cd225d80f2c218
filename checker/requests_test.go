package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/histories"
)

// withRequest returns the history in file with a request event (a
// dropped EndTxn response of kchaos-txn-producer-0 to broker 1) added
// after the last event at or before time at, indexes renumbered.
func withRequest(t *testing.T, file string, at int64) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a := histories.RequestAction{Rule: 1, Action: "drop-response", API: "EndTxn", Version: 4, CorrelationID: 7,
		ClientID: "kchaos-txn-producer-0", Broker: 1, BrokerErrors: []string{"NONE"}}
	v, _ := json.Marshal(histories.NemesisValue{Fault: "drop-response", Nodes: []int32{1}, Details: a.Details()})
	req := map[string]json.RawMessage{"time": json.RawMessage(fmt.Sprint(at)), "process": json.RawMessage("-1"),
		"type": json.RawMessage(`"info"`), "f": json.RawMessage(`"request"`), "value": v}
	var out [][]byte
	added := false
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		var tm int64
		_ = json.Unmarshal(e["time"], &tm)
		if !added && tm > at {
			out = append(out, renumber(t, req, len(out)))
			added = true
		}
		out = append(out, renumber(t, e, len(out)))
	}
	if !added {
		out = append(out, renumber(t, req, len(out)))
	}
	return append(bytes.Join(out, []byte("\n")), '\n')
}

func renumber(t *testing.T, e map[string]json.RawMessage, i int) []byte {
	t.Helper()
	e = maps.Clone(e)
	e["index"] = json.RawMessage(fmt.Sprint(i))
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRequestActionsNamed: a request fault's action inside an entry's
// window (at its last fault's moment) is named beside its faults, in the
// entry and its explanation's text, and changes no verdict or count.
func TestRequestActionsNamed(t *testing.T) {
	const named = "drop-response of EndTxn v4 (correlation id 7) from kchaos-txn-producer-0 to broker 1 " +
		"(the broker had answered NONE) at "
	for _, tc := range []struct {
		file string
		// entry returns the first entry's faults, request actions and text.
		entry func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string)
	}{
		{"lost-write.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.LostWrite[0]
			return e.Faults, e.Requests, r.Explanations[e.Range].Text
		}},
		{"unclean-election.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.LostWrite[0]
			return e.Faults, e.Requests, r.Explanations[e.Range].Text
		}},
		{"txn-lost-torn.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.TxnLostWrite[0]
			return e.Faults, e.Requests, e.Text
		}},
		{"txn-lost-torn.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.TxnTorn[0]
			return e.Faults, e.Requests, e.Text
		}},
		{"txn-hanging.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.TxnHanging[0]
			return e.Faults, e.Requests, e.Text
		}},
		{"group-commit-backwards.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.CommitBackwards[0]
			return e.Faults, e.Requests, e.Text
		}},
		{"group-commit-lost.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.CommitLost[0]
			return e.Faults, e.Requests, e.Text
		}},
		{"group-outside-assignment.jsonl", func(r *Result) ([]judge.FaultRef, []judge.RequestRef, string) {
			e := r.Anomalies.DeliveryOutsideAssignment[0]
			return e.Faults, e.Requests, e.Text
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(testdataDir, tc.file)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			before, err := checkReader(f, Options{})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			faults, reqs, _ := tc.entry(before)
			if len(faults) == 0 || len(reqs) != 0 {
				t.Fatalf("before: faults %v, requests %v: want a fault and no request", faults, reqs)
			}
			at := int64(faults[len(faults)-1].AtS*1e9 + 0.5)
			for _, c := range []struct {
				name string
				at   int64
				want bool
			}{{"inside", at, true}, {"at the start", 0, false}} {
				after, err := checkReader(bytes.NewReader(withRequest(t, path, c.at)), Options{})
				if err != nil {
					t.Fatal(err)
				}
				if after.Valid != before.Valid || !maps.Equal(after.Counts, before.Counts) {
					t.Errorf("%s: verdict %v counts %v, want %v %v as without the action", c.name, after.Valid, after.Counts, before.Valid, before.Counts)
				}
				faultsAfter, reqs, text := tc.entry(after)
				if len(faultsAfter) != len(faults) {
					t.Errorf("%s: faults %v, want %v", c.name, faultsAfter, faults)
				}
				if !c.want {
					if len(reqs) != 0 || strings.Contains(text, "request actions") {
						t.Errorf("%s: requests %v, text %q: want none named", c.name, reqs, text)
					}
					continue
				}
				if len(reqs) != 1 || reqs[0].API != "EndTxn" || reqs[0].ClientID != "kchaos-txn-producer-0" || reqs[0].Broker != 1 ||
					reqs[0].Action != "drop-response" || reqs[0].AtS != faults[len(faults)-1].AtS {
					t.Fatalf("%s: requests %+v: want the action at %.1f s", c.name, reqs, faults[len(faults)-1].AtS)
				}
				if want := named + fmt.Sprintf("%.1f s", reqs[0].AtS); !strings.Contains(text, want) {
					t.Errorf("%s: text\n  %s\nwant it to name\n  %s", c.name, text, want)
				}
			}
		})
	}
}

// TestBadRequestEvent: a request event whose details lack the action is
// bad input, named.
func TestBadRequestEvent(t *testing.T) {
	h := `{"index":0,"time":0,"process":-1,"type":"info","f":"request","value":{"fault":"delay","details":{"api":"Produce"}}}` + "\n"
	_, err := checkReader(strings.NewReader(h), Options{})
	if err == nil || !strings.Contains(err.Error(), `"action"`) {
		t.Fatalf("err %v, want one naming the action", err)
	}
}
