package histories

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodePollRequest: the fast path decodes a poll invoke's value as
// encoding/json does, and leaves it everything else (escapes, nulls,
// keys that differ only in case, wrong types), whose error it returns.
func TestDecodePollRequest(t *testing.T) {
	for _, raw := range []string{
		`{"topic":"t","partitions":[0,4]}`,
		`{"topic":"t","partitions":[0,4],"isolation":"read_committed"}`,
		`{"topic":"t","group":"g","member_id":"m1","generation":3,"isolation":"read_uncommitted"}`,
		`{"group":"g","group":"h"}`,
		`{"Group":"g"}`,
		`{"ISOLATION":"read_committed"}`,
		`{"group":null,"generation":null}`,
		`{"isolation":"read_c\u006fmmitted"}`,
		`{"generation":1.5}`,
		`{"generation":99999999999}`,
		`{"isolation":5}`,
		`{"member_id":"m","extra":{"a":[1,{"b":null}],"c":"\n"}}`,
		`{}`,
		`[]`,
		`{"generation":-0}`,
	} {
		var fast, slow PollRequest
		ferr := DecodePollRequest([]byte(raw), &fast)
		serr := json.Unmarshal([]byte(raw), &slow)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() || !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: fast %+v %v, encoding/json %+v %v", raw, fast, ferr, slow, serr)
		}
	}
}
