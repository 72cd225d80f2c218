package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
)

// requestHistory: a drop-response fault on Produce, its one action at
// 1.5 s (the send's answer dropped), the send timed out, then the heal.
const requestHistory = `{"index":0,"time":0,"process":-2,"type":"ok","f":"observe","value":{"topic":"orders","partition":0,"leader":1,"leader_epoch":1,"isr":[0,1,2],"high_watermark":0}}
{"index":1,"time":1000000000,"process":-1,"type":"invoke","f":"drop-response","value":{"fault":"drop-response","details":{"api":["Produce"],"first":1}}}
{"index":2,"time":1100000000,"process":-1,"type":"ok","f":"drop-response","value":{"fault":"drop-response","details":{"rule":1}}}
{"index":3,"time":1200000000,"process":0,"type":"invoke","f":"send","value":{"topic":"orders","partition":0,"value":"a0"}}
{"index":4,"time":1500000000,"process":-1,"type":"info","f":"request","value":{"fault":"drop-response","nodes":[1],"details":{"action":"drop-response","api":"Produce","version":11,"correlation_id":5,"client_id":"kchaos-producer-0","broker":1,"rule":1,"broker_errors":["NONE"]}}}
{"index":5,"time":4000000000,"process":0,"type":"info","f":"send","value":{"topic":"orders","partition":0,"value":"a0"},"error":"REQUEST_TIMED_OUT"}
{"index":6,"time":5000000000,"process":-1,"type":"invoke","f":"heal","value":{"fault":"requests"}}
{"index":7,"time":5000000000,"process":-1,"type":"ok","f":"heal","value":{"fault":"requests"}}
`

// TestRequestActionsPlaced: the report places a request fault's action
// on its timeline, a tick in the requests lane titled with what it did,
// and in the Faults table at its time, between the ops around it.
func TestRequestActionsPlaced(t *testing.T) {
	md, html := checkedRun(t, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, HistoryFile), []byte(requestHistory), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	const what = "request (drop-response): drop-response of Produce v11 (correlation id 5) from kchaos-producer-0 to broker 1 (the broker had answered NONE)"
	op := strings.Index(md, "| 1.0 s | 1.1 s | drop-response")
	row := strings.Index(md, "| 1.5 s | 1.5 s | "+what+" |")
	heal := strings.Index(md, "| 5.0 s | 5.0 s | heal")
	if op < 0 || row < 0 || heal < 0 || !(op < row && row < heal) {
		t.Errorf("Faults table: op %d, action %d, heal %d: want the action's row between the two\n%s", op, row, heal, md)
	}
	if !strings.Contains(html, `class="request-action"`) || !strings.Contains(html, "<title>1.5 s: "+what+"</title>") {
		t.Errorf("no request tick titled %q in the timeline", what)
	}
	if !strings.Contains(html, ">requests</text>") {
		t.Errorf("no requests lane")
	}
}

// TestFaultRows: actions merge with the ops by time, and those past
// maxRequestRows are counted in a last row.
func TestFaultRows(t *testing.T) {
	ops := []nemOp{{F: "delay", Start: 10, End: 20, Type: histories.OK}, {F: "heal", Start: 100, End: 100, Type: histories.OK}}
	req := func(at int64) pass.Request {
		return pass.Request{Time: at, Fault: "delay", Action: histories.RequestAction{Action: "delay", API: "Produce", Broker: 0}}
	}
	for _, tc := range []struct {
		name  string
		reqs  []pass.Request
		want  []string // each row's first words
		extra string   // the last row, when actions were left out
	}{
		{"none", nil, []string{"delay", "heal"}, ""},
		{"between", []pass.Request{req(50)}, []string{"delay", "request", "heal"}, ""},
		{"before and after", []pass.Request{req(5), req(150)}, []string{"request", "delay", "heal", "request"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := faultRows(ops, tc.reqs)
			if len(rows) != len(tc.want) {
				t.Fatalf("rows %+v, want %v", rows, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(rows[i].Desc, w) {
					t.Errorf("row %d %q, want %s", i, rows[i].Desc, w)
				}
			}
		})
	}
	var many []pass.Request
	for i := range maxRequestRows + 7 {
		many = append(many, req(int64(200+i)))
	}
	rows := faultRows(ops, many)
	if len(rows) != 2+maxRequestRows+1 || rows[len(rows)-1].Desc != "7 more request actions, not listed (history.jsonl has each as a request event)" {
		t.Errorf("%d rows, last %+v", len(rows), rows[len(rows)-1])
	}
}
