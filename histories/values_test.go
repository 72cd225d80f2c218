package histories

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// maxFuzzInput bounds what the fuzz targets here check: a value past it
// is no history's (the checker's own fuzz targets bound whole histories
// the same way).
const maxFuzzInput = 16 << 10

// FuzzDecode: whenever the fast value decoders accept a value,
// encoding/json decodes the same into the contract's types.
func FuzzDecode(f *testing.F) {
	// Seeds: every distinct value of the hand-made testdata histories
	// (each line of a history is small; the real runs' are the same shapes).
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	seen := map[string]bool{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var e Event
			if json.Unmarshal(line, &e) == nil && len(e.Value) > 0 && !seen[string(e.Value)] {
				seen[string(e.Value)] = true
				f.Add(string(e.Value))
			}
		}
	}
	if len(seen) < 50 {
		f.Fatalf("only %d distinct values in %d testdata histories to seed with", len(seen), len(paths))
	}
	for _, s := range decodeCases {
		f.Add(s.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > maxFuzzInput {
			return
		}
		compareDecoders(t, raw)
	})
}

var decodeCases = []struct {
	raw  string
	fast bool // the fast path takes it
}{
	{`{"topic":"t","partition":3,"value":"v1","offset":12}`, true},
	{`{"topic":"t","partition":3,"value":"v1"}`, true},
	{` { "value" : "v" , "topic":"t" } `, true},
	{`{"topic":"t","records":[{"partition":0,"offset":1,"value":"a","leader_epoch":2}],"end_offsets":{"0":2}}`, true},
	{`{"topic":"t","records":null,"start_offsets":{"1":0}}`, true},
	{`{"topic":"t","records":[]}`, true},
	{`{"Topic":"t"}`, false},                         // encoding/json matches keys case-insensitively
	{`{"topic":"t","topic":"u"}`, false},             // last wins there
	{`{"topic":"t\u00e9"}`, false},                   // escapes
	{`{"partition":1e3}`, false},                     // not an int
	{`{"partition":4294967296}`, false},              // out of int32
	{`{"records":[{"offset":1,"offset":2}]}`, false}, //
	{`{"end_offsets":{"x":1}}`, false},               // bad key: encoding/json decodes, partitionMap rejects
	{`{"topic":"t"} x`, false},                       //
}

func TestDecoders(t *testing.T) {
	for _, c := range decodeCases {
		var sv SendFields
		var rv ReadFields
		fast := fastSend([]byte(c.raw), &sv) || fastRead([]byte(c.raw), &rv)
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.raw, fast, c.fast)
		}
		compareDecoders(t, c.raw)
	}
}

func compareDecoders(t *testing.T, raw string) {
	t.Helper()
	var sv SendFields
	if fastSend([]byte(raw), &sv) {
		var want SendValue
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: fast send accepted what encoding/json rejects: %v", raw, err)
		}
		if string(sv.Topic) != want.Topic || sv.Partition != want.Partition || string(sv.Value) != want.Value ||
			sv.HasOffset != (want.Offset != nil) || (sv.HasOffset && sv.Offset != *want.Offset) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", raw, sv, want)
		}
	}
	var rv ReadFields
	if fastRead([]byte(raw), &rv) {
		var want ReadResult
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: fast read accepted what encoding/json rejects: %v", raw, err)
		}
		var recs []Record
		for _, r := range rv.Records {
			recs = append(recs, Record{Partition: r.Partition, Offset: r.Offset, Value: string(r.Value), LeaderEpoch: r.Epoch})
		}
		ends, err1 := partitionMap(want.EndOffsets)
		starts, err2 := partitionMap(want.StartOffsets)
		if string(rv.Topic) != want.Topic || len(recs) != len(want.Records) || (len(recs) > 0 && !reflect.DeepEqual(recs, want.Records)) ||
			err1 != nil || err2 != nil || !sameMap(rv.Ends, ends) || !sameMap(rv.Starts, starts) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", raw, rv, want)
		}
	}
	// The full decoders agree with the fast ones or fail; they never panic.
	_ = DecodeSendValue([]byte(raw), &SendFields{})
	_ = DecodeReadValue([]byte(raw), &ReadFields{})
}

func sameMap(a, b map[int32]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
