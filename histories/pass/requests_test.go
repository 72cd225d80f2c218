package pass

import (
	"strings"
	"testing"
)

// TestRequests: the request events decode once, in file order, with the
// fault and broker; one whose details do not decode is left out; none is
// a fault of its own.
func TestRequests(t *testing.T) {
	const h = `{"index":0,"time":1,"process":-1,"type":"invoke","f":"drop-response","value":{"fault":"drop-response","details":{"api":["EndTxn"]}}}
{"index":1,"time":2,"process":-1,"type":"info","f":"request","value":{"fault":"drop-response","nodes":[1],"details":{"action":"drop-response","api":"EndTxn","version":4,"correlation_id":7,"client_id":"kchaos-txn-producer-0","broker":1,"rule":1}}}
{"index":2,"time":3,"process":-1,"type":"ok","f":"drop-response","value":{"fault":"drop-response","details":{"rule":1}}}
{"index":3,"time":4,"process":-1,"type":"info","f":"request","value":{"fault":"drop-response","details":{"api":"EndTxn"}}}
{"index":4,"time":5,"process":-1,"type":"info","f":"request","value":{"fault":"delay","nodes":[2],"details":{"action":"delay","api":"Produce","version":11,"correlation_id":9,"client_id":"kchaos-producer-0","broker":2,"delay_ms":2000}}}
`
	p := New()
	p.Read(strings.NewReader(h))
	rs := p.Timeline.Requests()
	if len(rs) != 2 {
		t.Fatalf("requests %+v, want 2", rs)
	}
	if r := rs[0]; r.Index != 1 || r.Time != 2 || r.Fault != "drop-response" || r.Action.API != "EndTxn" || r.Action.Broker != 1 || len(r.Nodes) != 1 {
		t.Errorf("first %+v", r)
	}
	if r := rs[1]; r.Index != 4 || r.Action.DelayMS != 2000 || r.Action.ClientID != "kchaos-producer-0" {
		t.Errorf("second %+v", r)
	}
	if f := p.Timeline.Faults(); len(f) != 1 || f[0].F != "drop-response" {
		t.Errorf("faults %+v: want the request fault's op alone", f)
	}
}
