package checker

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// maxFuzzInput bounds what the fuzz targets check: past it an exec would
// take long enough (the real histories take a second each) that a minute
// of fuzzing tries a few dozen inputs and finds nothing. The checker's
// behaviour on large histories is what the scale tests and benchmarks pin.
const maxFuzzInput = 16 << 10

// addTestdata seeds a fuzz corpus with the testdata histories small enough
// to fuzz (the hand-made ones, not the real runs).
func addTestdata(f *testing.F, each func([]byte)) {
	paths, _ := filepath.Glob(filepath.Join(testdataDir, "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(testdataDir, "*", HistoryFile))
	n := 0
	for _, p := range append(paths, sub...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= maxFuzzInput {
			each(b)
			n++
		}
	}
	if n < 15 {
		f.Fatalf("only %d small testdata histories to seed with", n)
	}
}

// FuzzCheck: the reader and the checker never panic, whatever the input,
// and hold the invariants of holdsInvariants on what they accept.
func FuzzCheck(f *testing.F) {
	addTestdata(f, func(b []byte) { f.Add(b) })
	var buf bytes.Buffer
	writeSynth(&buf, synthConfig{Ops: 40, Partitions: 2, Workers: 4, Seed: 9, InfoRate: 0.1, FailRate: 0.1})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		holdsInvariants(t, data)
	})
}

// FuzzDecode: whenever the fast value decoders accept a value,
// encoding/json decodes the same into the contract's types.
func FuzzDecode(f *testing.F) {
	seen := map[string]bool{}
	addTestdata(f, func(b []byte) {
		for _, line := range bytes.Split(b, []byte("\n")) {
			var e histories.Event
			if json.Unmarshal(line, &e) == nil && len(e.Value) > 0 && !seen[string(e.Value)] {
				seen[string(e.Value)] = true
				f.Add(string(e.Value))
			}
		}
	})
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
		var sv sendVal
		var rv readVal
		fast := fastSend([]byte(c.raw), &sv) || fastRead([]byte(c.raw), &rv)
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.raw, fast, c.fast)
		}
		compareDecoders(t, c.raw)
	}
}

func compareDecoders(t *testing.T, raw string) {
	t.Helper()
	var sv sendVal
	if fastSend([]byte(raw), &sv) {
		var want histories.SendValue
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: fast send accepted what encoding/json rejects: %v", raw, err)
		}
		if string(sv.topic) != want.Topic || sv.partition != want.Partition || string(sv.value) != want.Value ||
			sv.hasOffset != (want.Offset != nil) || (sv.hasOffset && sv.offset != *want.Offset) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", raw, sv, want)
		}
	}
	var rv readVal
	if fastRead([]byte(raw), &rv) {
		var want histories.ReadResult
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: fast read accepted what encoding/json rejects: %v", raw, err)
		}
		var recs []histories.Record
		for _, r := range rv.recs {
			recs = append(recs, histories.Record{Partition: r.partition, Offset: r.offset, Value: string(r.value), LeaderEpoch: r.epoch})
		}
		ends, err1 := partitionMap(want.EndOffsets)
		starts, err2 := partitionMap(want.StartOffsets)
		if string(rv.topic) != want.Topic || len(recs) != len(want.Records) || (len(recs) > 0 && !reflect.DeepEqual(recs, want.Records)) ||
			err1 != nil || err2 != nil || !sameMap(rv.ends, ends) || !sameMap(rv.starts, starts) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", raw, rv, want)
		}
	}
	// The full decoders agree with the fast ones or fail; they never panic.
	_ = decodeSend([]byte(raw), &sendVal{})
	_ = decodeRead([]byte(raw), &readVal{})
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
