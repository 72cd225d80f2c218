package histories

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fastEventCases are lines the fast path must decode (want true) or leave
// to encoding/json (want false).
var fastEventCases = []struct {
	line string
	want bool
}{
	{`{"index":0,"time":5,"process":1,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}`, true},
	{`{"index":3,"time":5,"process":-2,"type":"ok","f":"observe","value":{"isr":[0,1],"x":-1.5e3,"y":null,"z":true,"s":"\u00e9\n"}}`, true},
	{`{ "index" : 1 , "time":0,"process":0,"type":"info","f":"send","error":"timeout" }`, true},
	{`{"index":1}`, false},                   // lacks required fields: the slow path names them
	{`{"index":1,"index":2}`, false},         // duplicate key: last wins in encoding/json
	{`{"Index":1}`, false},                   // case-insensitive match
	{`{"index":01}`, false},                  // invalid JSON
	{`{"index":-0}`, false},                  // valid, left to encoding/json
	{`{"index":1.0}`, false},                 // not an int
	{`{"index":1234567890123456789}`, false}, // could overflow
	{`{"f":"s\u0065nd"}`, false},             // escape in a plain field
	{`{"f":"caf\xc3\xa9"}`, false},           // non-ASCII
	{`{"value":null}`, false},                // value not an object
	{`{"value":[1]}`, false},                 //
	{`{"value":{"a":1,}}`, false},            // invalid
	{`{"value":{"a":01}}`, false},            //
	{`{"value":{"a":"\x01"}}`, false},        // control character
	{`{"index":1} {}`, false},                // trailing data
	{`{"extra":1}`, false},                   // unknown key
	{`{}`, false},                            //
	{`[]`, false},                            //
}

func TestFastEvent(t *testing.T) {
	for _, c := range fastEventCases {
		var fast Event
		got := fastEvent([]byte(c.line), &fast)
		if got != c.want {
			t.Errorf("fastEvent(%s) = %v, want %v", c.line, got, c.want)
			continue
		}
		if got {
			var slow Event
			if err := json.Unmarshal([]byte(c.line), &slow); err != nil {
				t.Errorf("%s: fast path accepted what encoding/json rejects: %v", c.line, err)
			} else if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s: fast %+v, encoding/json %+v", c.line, fast, slow)
			}
		}
	}
}

// FuzzFastEvent: whenever the fast path accepts a line, encoding/json
// accepts it too and decodes the same Event.
func FuzzFastEvent(f *testing.F) {
	for _, c := range fastEventCases {
		f.Add(c.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var fast Event
		if !fastEvent([]byte(line), &fast) {
			return
		}
		var slow Event
		if err := json.Unmarshal([]byte(line), &slow); err != nil {
			t.Fatalf("%q: fast path accepted what encoding/json rejects: %v", line, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", line, fast, slow)
		}
	})
}
