package histories

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestCanonicalAgrees: the Recorder's spelling of a send and of a record
// is read by canonicalSend and canonicalRecord, and what they read is what
// the walk by field (fastSend) and encoding/json read; any other spelling
// is left to the walk, with nothing consumed.
func TestCanonicalAgrees(t *testing.T) {
	sends := []struct {
		raw       string
		canonical bool
	}{
		{`{"topic":"t","partition":3,"value":"v1","offset":12}`, true},
		{`{"topic":"t","partition":3,"value":"v1"}`, true},
		{`{"topic":"","partition":-1,"value":""}`, true},
		{`{"topic":"t","partition":3,"value":"v1","offset":-5}`, true},
		{`{"topic":"t","partition":3,"value":"v1","offset":12} `, false},
		{`{"topic":"t","partition":3,"value":"v1","key":"k"}`, false},
		{`{"topic":"t","partition":03,"value":"v1"}`, false},
		{`{"topic":"t","partition":4294967296,"value":"v1"}`, false},
		{`{"topic":"t\u00e9","partition":3,"value":"v1"}`, false},
		{`{"topic":"t","partition":3,"value":"v1","offset":1.5}`, false},
		{`{"topic":"t","partition":3,"value":"v1","offset":12,"offset":13}`, false},
		{`{"partition":3,"topic":"t","value":"v1"}`, false},
		{`{"topic":"t","partition":3,"value":"v1"`, false},
		{`{"topic":"t","partition":3,"value":"v1"}}`, false},
	}
	for _, c := range sends {
		var got, walk SendFields
		ok := canonicalSend([]byte(c.raw), &got)
		if ok != c.canonical {
			t.Errorf("%s: canonical %v, want %v", c.raw, ok, c.canonical)
		}
		if ok && (!fastSend([]byte(c.raw), &walk) || !reflect.DeepEqual(got, walk)) {
			t.Errorf("%s: canonical %+v, walk %+v", c.raw, got, walk)
		}
		if !ok && !reflect.DeepEqual(got, SendFields{}) {
			t.Errorf("%s: refused, yet wrote %+v", c.raw, got)
		}
		compareDecoders(t, c.raw)
	}
	records := []struct {
		raw       string
		canonical bool
	}{
		{`{"partition":6,"offset":0,"value":"v10","leader_epoch":1}`, true},
		{`{"partition":-1,"offset":-2,"value":"","leader_epoch":-1}`, true},
		{`{"partition":6,"offset":0,"value":"v10","leader_epoch":1,"x":1}`, false},
		{`{"offset":0,"partition":6,"value":"v10","leader_epoch":1}`, false},
		{`{"partition":6,"offset":0,"value":"v10"}`, false},
		{`{"partition":6,"offset":0,"value":"v\n","leader_epoch":1}`, false},
		{`{"partition":6,"offset":0,"value":"v10","leader_epoch":2147483648}`, false},
		{`{ "partition":6,"offset":0,"value":"v10","leader_epoch":1}`, false},
	}
	for _, c := range records {
		s := newScanner([]byte(c.raw))
		var r RecordFields
		ok := canonicalRecord(&s, &r)
		if ok != c.canonical {
			t.Errorf("%s: canonical %v, want %v", c.raw, ok, c.canonical)
		}
		if !ok {
			if len(s.rest()) != len(c.raw) || !reflect.DeepEqual(r, RecordFields{}) {
				t.Errorf("%s: refused, yet consumed or wrote", c.raw)
			}
			continue
		}
		var want Record
		if err := json.Unmarshal([]byte(c.raw), &want); err != nil || len(s.rest()) != 0 ||
			(Record{Partition: r.Partition, Offset: r.Offset, Value: string(r.Value), LeaderEpoch: r.Epoch}) != want {
			t.Errorf("%s: canonical %+v (%d left), encoding/json %+v %v", c.raw, r, len(s.rest()), want, err)
		}
		read := `{"topic":"t","records":[` + c.raw + `,` + c.raw + `]}`
		compareDecoders(t, read)
	}
}

// TestCanonicalEvent: an event line in the Recorder's spelling decodes as
// encoding/json decodes it; another spelling is left to the walk by
// field, the event untouched.
func TestCanonicalEvent(t *testing.T) {
	cases := []struct {
		line      string
		canonical bool
	}{
		{`{"index":0,"time":0,"process":12,"type":"invoke","f":"assign","value":{"topic":"t","partitions":[0,4]}}`, true},
		{`{"index":7,"time":5,"process":-1,"type":"info","f":"send","value":{"topic":"t","partition":7,"value":"v4"},"error":"timeout"}`, true},
		{`{"index":7,"time":5,"process":-2,"type":"ok","f":"observe"}`, true},
		{`{"index":7,"time":5,"process":3,"type":"fail","f":"poll","error":""}`, true},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"weird-f","value":{}}`, true},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"poll","value":{"a":[1,{"b":null}]}}`, true},
		{`{"time":5,"index":7,"process":3,"type":"ok","f":"poll"}`, false},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"poll","value":[1]}`, false},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"poll","value":{"a":1}`, false},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"poll"} `, false},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"poll","error":"e","value":{}}`, false},
		{`{"index":7,"time":5,"process":3,"type":"o\u006b","f":"poll"}`, false},
		{`{"index":07,"time":5,"process":3,"type":"ok","f":"poll"}`, false},
		{`{"index":7,"time":5,"process":3,"type":"ok","f":"poll","extra":1}`, false},
	}
	for _, c := range cases {
		var arena []byte
		var e Event
		ok := canonicalEvent([]byte(c.line), &e, &arena)
		if ok != c.canonical {
			t.Errorf("%s: canonical %v, want %v", c.line, ok, c.canonical)
		}
		if !ok {
			if !reflect.DeepEqual(e, Event{}) {
				t.Errorf("%s: refused, yet wrote %+v", c.line, e)
			}
			continue
		}
		var want Event
		if err := json.Unmarshal([]byte(c.line), &want); err != nil || !reflect.DeepEqual(e, want) {
			t.Errorf("%s: canonical %+v, encoding/json %+v %v", c.line, e, want, err)
		}
	}
}
