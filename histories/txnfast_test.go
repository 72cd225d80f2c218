package histories

import (
	"encoding/json"
	"reflect"
	"testing"
)

var txnDecodeCases = []struct {
	raw  string
	fast bool // the fast path takes it
}{
	{`{"transactional_id":"tx","intent":"commit","ops":[{"f":"send","topic":"t","partition":0,"value":"a"}]}`, true},
	{`{"transactional_id":"tx","intent":"commit","ops":[{"f":"poll","topic":"t","partitions":[0,1],"records":[{"partition":0,"offset":1,"value":"a","leader_epoch":2}]},{"f":"send","topic":"t","partition":1,"value":"b","offset":7}],"end_invoked":12,"producer_id":3,"producer_epoch":0}`, true},
	{` { "ops" : [ ] , "intent":"abort" } `, true},
	{`{"transactional_id":"tx","ops":[{"f":"poll","topic":"t","partitions":[]}]}`, true},
	{`{"transactional_id":null,"intent":"commit","ops":[]}`, false},
	{`{"transactional_id":"t\u0078","intent":"commit","ops":[]}`, false},
	{`{"Intent":"commit","ops":[]}`, false},
	{`{"intent":"commit","intent":"abort"}`, false},
	{`{"ops":[{"f":"send","partition":1e3}]}`, false},
	{`{"ops":[{"f":"poll","records":null}]}`, false},
	{`{"ops":[{"f":"send","partition":99999999999}]}`, false},
	{`{"extra":1}`, false},
}

// compareTxnDecoders: whenever fastTxn takes a value, encoding/json
// decodes the same.
func compareTxnDecoders(t *testing.T, raw string) bool {
	t.Helper()
	var fast TxnFields
	if !fastTxn([]byte(raw), &fast) {
		return false
	}
	var slow TxnFields
	if err := json.Unmarshal([]byte(raw), &slow); err != nil {
		t.Fatalf("fast path took %s, encoding/json: %v", raw, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		fb, _ := json.Marshal(fast)
		sb, _ := json.Marshal(slow)
		t.Fatalf("%s:\nfast %s\njson %s", raw, fb, sb)
	}
	return true
}

func TestFastTxn(t *testing.T) {
	for _, c := range txnDecodeCases {
		if got := compareTxnDecoders(t, c.raw); got != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.raw, got, c.fast)
		}
	}
}

func FuzzDecodeTxn(f *testing.F) {
	for _, c := range txnDecodeCases {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > maxFuzzInput {
			return
		}
		compareTxnDecoders(t, raw)
	})
}
