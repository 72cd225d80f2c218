package histories

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestShareValuesEncodeAsEncodingJSON holds the share values' own
// encoders (shares_json.go) to encoding/json's bytes: the Reader's fast
// path and every history written before them rely on that form.
func TestShareValuesEncodeAsEncodingJSON(t *testing.T) {
	poll, inv, done := shareRound(3)
	wire := done.Acks[0].Wire
	cases := []struct {
		name string
		v    any
	}{
		{"poll invoke", SharePollValue{Group: "g", Member: "share-0", Topic: "t"}},
		{"poll empty records", SharePollValue{Group: "g", Member: "m", Topic: "t", Records: []ShareRecord{}}},
		{"poll", poll},
		{"ack nil acks", ShareAckValue{Group: "g", Member: "m", Topic: "t"}},
		{"ack empty acks", ShareAckValue{Group: "g", Member: "m", Topic: "t", Acks: []ShareAck{}}},
		{"ack invoke", inv},
		{"ack done", done},
		{"ack every optional field", ShareAckValue{Group: "g", Member: "m", Topic: "t", Acks: []ShareAck{{
			Partition: -1, Offset: -9, Value: "", DeliveryCount: 0, Status: AckRenew, Outcome: ShareOutcomeInfo,
			Error: "REQUEST_TIMED_OUT", Wire: &ShareAckWire{Request: "ShareFetch", SessionEpoch: -1, TopError: "X",
				Error: "NONE", Attempts: 3, Earlier: []string{"no answer", "top-level Y"}}}}}},
		{"ack wire without answer", ShareAckValue{Group: "g", Member: "m", Topic: "t", Acks: []ShareAck{{
			Status: AckAccept, Wire: &ShareAckWire{Request: wire.Request, Earlier: []string{}}}}}},
		{"escapes", SharePollValue{Group: `a"b\c`, Member: "<m>&", Topic: "t\n\x00", Records: []ShareRecord{
			{Value: "\u2028\u2029"}, {Value: "\xff\xfeinvalid"}, {Value: "é日本"}, {Value: "\x7f"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { sameAsEncodingJSON(t, c.v) })
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		sameAsEncodingJSON(t, ShareAckValue{Group: randString(rng), Member: randString(rng), Topic: randString(rng),
			Acks: []ShareAck{{Partition: rng.Int32(), Offset: rng.Int64() - rng.Int64(), Value: randString(rng),
				Status: randString(rng), Outcome: randString(rng), Error: randString(rng),
				Wire: &ShareAckWire{Request: randString(rng), Answered: rng.IntN(2) == 0, Earlier: []string{randString(rng)}}}}})
	}
}

func sameAsEncodingJSON(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	buf, ok := appendPerRecord(v)
	if !ok {
		t.Fatalf("%T is not a per-record value", v)
	}
	got := bytes.Clone(buf.b)
	buf.put()
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded\n got %s\nwant %s", got, want)
	}
}

// randString draws a short string of any bytes, printable ASCII most often.
func randString(rng *rand.Rand) string {
	b := make([]byte, rng.IntN(8))
	for i := range b {
		if rng.IntN(4) == 0 {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = byte(0x20 + rng.IntN(0x5f))
		}
	}
	return string(b)
}
