package histories

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// jsonKeys returns the top-level keys of a JSON object.
func jsonKeys(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func TestTypeValid(t *testing.T) {
	for _, tc := range []struct {
		typ  Type
		want bool
	}{
		{Invoke, true}, {OK, true}, {Fail, true}, {Info, true},
		{"", false}, {"OK", false}, {"invoke ", false}, {"done", false},
	} {
		if got := tc.typ.Valid(); got != tc.want {
			t.Errorf("Type(%q).Valid() = %v, want %v", tc.typ, got, tc.want)
		}
	}
}

// The contract's field names, and value/error omitted when empty.
func TestEventJSON(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"invoke", Event{Index: 3, Time: 42, Process: 7, Type: Invoke, F: FSend, Value: json.RawMessage(`{"topic":"t"}`)},
			`{"index":3,"time":42,"process":7,"type":"invoke","f":"send","value":{"topic":"t"}}`},
		{"fail", Event{Index: 4, Time: 43, Process: 7, Type: Fail, F: FSend, Error: "NOT_ENOUGH_REPLICAS"},
			`{"index":4,"time":43,"process":7,"type":"fail","f":"send","error":"NOT_ENOUGH_REPLICAS"}`},
		{"nemesis", Event{Index: 0, Process: NemesisProcess, Type: Info, F: "kill"},
			`{"index":0,"time":0,"process":-1,"type":"info","f":"kill"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(&tc.e)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got  %s\nwant %s", b, tc.want)
			}
			var back Event
			if err := json.Unmarshal(b, &back); err != nil || !sameEvent(back, tc.e) {
				t.Fatalf("round trip: %+v (err %v)", back, err)
			}
		})
	}
}

func TestSendValueJSON(t *testing.T) {
	o := func(v int64) *int64 { return &v }
	tests := []struct {
		name string
		v    SendValue
		want string
	}{
		{"invoke, nil offset", SendValue{Topic: "t", Partition: 1, Value: "v"}, `{"topic":"t","partition":1,"value":"v"}`},
		{"ok, offset 0 is kept", SendValue{Topic: "t", Partition: 0, Value: "v", Offset: o(0)}, `{"topic":"t","partition":0,"value":"v","offset":0}`},
		{"ok, offset", SendValue{Topic: "t", Partition: 2, Value: "v", Offset: o(1 << 40)}, `{"topic":"t","partition":2,"value":"v","offset":1099511627776}`},
		{"keyed", SendValue{Topic: "t", Value: "v", Key: "k"}, `{"topic":"t","partition":0,"value":"v","key":"k"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got  %s\nwant %s", b, tc.want)
			}
			_, hasOffset := jsonKeys(t, b)["offset"]
			if hasOffset != (tc.v.Offset != nil) {
				t.Fatalf("offset key present = %v with Offset %v", hasOffset, tc.v.Offset)
			}
			var back SendValue
			e := Event{Value: b}
			if err := e.Decode(&back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.v) {
				t.Fatalf("decoded %+v, want %+v", back, tc.v)
			}
			if (back.Offset == nil) != (tc.v.Offset == nil) {
				t.Fatalf("offset nil-ness lost: %v", back.Offset)
			}
		})
	}
}

// The contract's final-read ok value: end_offsets keyed by partition strings.
func TestReadResultJSON(t *testing.T) {
	in := `{"topic":"t","records":[{"partition":0,"offset":0,"value":"a","leader_epoch":1},` +
		`{"partition":10,"offset":3,"value":"b","leader_epoch":2}],"end_offsets":{"10":4,"0":1,"2":0}}`
	var rr ReadResult
	if err := (&Event{Value: json.RawMessage(in)}).Decode(&rr); err != nil {
		t.Fatal(err)
	}
	want := ReadResult{Topic: "t",
		Records:    []Record{{Partition: 0, Offset: 0, Value: "a", LeaderEpoch: 1}, {Partition: 10, Offset: 3, Value: "b", LeaderEpoch: 2}},
		EndOffsets: map[string]int64{"0": 1, "2": 0, "10": 4}}
	if !reflect.DeepEqual(rr, want) {
		t.Fatalf("decoded %+v\nwant %+v", rr, want)
	}
	if got := SortedPartitions(rr.EndOffsets); !reflect.DeepEqual(got, []int32{0, 2, 10}) {
		t.Fatalf("SortedPartitions = %v", got)
	}
	for _, p := range []int32{0, 2, 10} {
		if _, ok := rr.EndOffsets[PartitionKey(p)]; !ok {
			t.Fatalf("no end offset under PartitionKey(%d)", p)
		}
	}
	b, err := json.Marshal(rr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"end_offsets":{"0":1,"10":4,"2":0}`) {
		t.Fatalf("end_offsets encoded as %s", b)
	}
	if _, ok := jsonKeys(t, b)["start_offsets"]; ok {
		t.Fatalf("empty start_offsets encoded: %s", b)
	}
	// A poll's ok value has no end_offsets.
	b, err = json.Marshal(ReadResult{Topic: "t", Records: []Record{}})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"topic":"t","records":[]}` {
		t.Fatalf("poll result encoded as %s", b)
	}
}

// The contract's other value shapes decode into the typed values.
func TestContractValues(t *testing.T) {
	zero := int64(0)
	tests := []struct {
		name string
		in   string
		into any
		want any
	}{
		{"poll invoke", `{"topic":"t","partitions":[0,1,2]}`, new(ReadRequest),
			&ReadRequest{Topic: "t", Partitions: []int32{0, 1, 2}}},
		{"final-read invoke", `{"topic":"t","partitions":[0],"from":0}`, new(ReadRequest),
			&ReadRequest{Topic: "t", Partitions: []int32{0}, From: &zero}},
		{"assign", `{"topic":"t","partitions":[1],"offsets":{"1":17}}`, new(AssignValue),
			&AssignValue{Topic: "t", Partitions: []int32{1}, Offsets: map[string]int64{"1": 17}}},
		{"observe", `{"topic":"t","partition":1,"leader":2,"leader_epoch":5,"isr":[2,3],"elr":[1],"last_known_elr":[],` +
			`"high_watermark":40,"log_end_offsets":{"2":40,"3":38}}`, new(ObserveValue),
			&ObserveValue{Topic: "t", Partition: 1, Leader: 2, LeaderEpoch: 5, ISR: []int32{2, 3}, ELR: []int32{1},
				LastKnownELR: []int32{}, HighWatermark: 40, LogEndOffsets: map[string]int64{"2": 40, "3": 38}}},
		{"nemesis", `{"fault":"lose-unflushed","nodes":[1,3],"details":{"cut":{"1":12}}}`, new(NemesisValue),
			&NemesisValue{Fault: "lose-unflushed", Nodes: []int32{1, 3}, Details: map[string]any{"cut": map[string]any{"1": 12.0}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := Event{Value: json.RawMessage(tc.in)}
			if err := e.Decode(tc.into); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.into, tc.want) {
				t.Fatalf("decoded %+v\nwant %+v", tc.into, tc.want)
			}
		})
	}
}

func TestEventDecode(t *testing.T) {
	v := SendValue{Topic: "keep"}
	if err := (&Event{}).Decode(&v); err != nil || v.Topic != "keep" {
		t.Fatalf("Decode of no value: %+v, %v", v, err)
	}
	if err := (&Event{Value: json.RawMessage(`{"topic":1}`)}).Decode(&v); err == nil {
		t.Fatal("Decode of a mistyped value succeeded")
	}
	if err := (&Event{Value: json.RawMessage(`null`)}).Decode(&v); err != nil {
		t.Fatalf("Decode of null: %v", err)
	}
}

func TestPartitionKey(t *testing.T) {
	for _, p := range []int32{0, 1, 9, 10, 42, 1000, math.MaxInt32, -1, math.MinInt32} {
		k := PartitionKey(p)
		got, err := ParsePartitionKey(k)
		if err != nil || got != p {
			t.Errorf("ParsePartitionKey(PartitionKey(%d) = %q) = %d, %v", p, k, got, err)
		}
	}
	for p, want := range map[int32]string{0: "0", 7: "7", 12: "12", -1: "-1"} {
		if got := PartitionKey(p); got != want {
			t.Errorf("PartitionKey(%d) = %q, want %q", p, got, want)
		}
	}
	for _, bad := range []string{"", "x", "1.5", " 1", "1 ", "0x1", "2147483648", "-2147483649", "99999999999999999999"} {
		if _, err := ParsePartitionKey(bad); err == nil {
			t.Errorf("ParsePartitionKey(%q) succeeded", bad)
		}
	}
}

func TestSortedPartitions(t *testing.T) {
	tests := []struct {
		name string
		m    map[string]int64
		want []int32
	}{
		{"nil", nil, []int32{}},
		{"empty", map[string]int64{}, []int32{}},
		{"one", map[string]int64{"3": 1}, []int32{3}},
		{"numeric, not lexical", map[string]int64{"10": 1, "2": 1, "1": 1, "0": 1, "100": 1, "11": 1}, []int32{0, 1, 2, 10, 11, 100}},
		{"bad keys skipped", map[string]int64{"x": 1, "2": 1, "": 1, "1": 1}, []int32{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SortedPartitions(tc.m)
			if got == nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("SortedPartitions(%v) = %#v, want %v", tc.m, got, tc.want)
			}
		})
	}
}
