package checker

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/share"
)

// TestRequestCauseRecorded: a real p4 run (histories/testdata/real-p4,
// Kafka 4.4.0). The drop-request fault was invoked once the group
// consumed, and its rule waited for share-1's next ShareAcknowledge: the
// request event records that action (at 17.372 s), which the fault's op
// (invoked at 17.308 s) does not. The records that ack carried came
// back, and each redelivery names the action (API, client, broker, time)
// as its cause, request-fault. Before, the checker said fault, naming
// only the op, because its invoke happened to fall between the delivery
// (17.171 s) and the redelivery; had the delivery come after the invoke,
// it said lock-expiry. share-0's ShareAcknowledge answer was dropped too: its
// records rest on an ack of unknown outcome (share-unknown), and each
// entry names that action. Nothing is lost, and the verdict is unknown,
// as without the actions.
func TestRequestCauseRecorded(t *testing.T) {
	dir := filepath.Join(testdataDir, "real-p4")
	res := checkCase(t, testdataCase{name: "real-p4", path: dir, expected: filepath.Join(dir, "expected.json"), folder: true})
	a := &res.Anomalies
	if len(a.ShareRedelivery) == 0 {
		t.Fatal("no share-redelivery")
	}
	for _, e := range a.ShareRedelivery {
		if e.Cause != share.CauseRequest || len(e.Requests) == 0 {
			t.Fatalf("redelivery of offset %d: cause %s, requests %q: want request-fault naming the action", e.Offset, e.Cause, e.Requests)
		}
		r := e.Requests[len(e.Requests)-1]
		if !strings.HasPrefix(r, "drop-request of ShareAcknowledge v") || !strings.Contains(r, " from kchaos-p4-share-1 to broker ") ||
			!strings.Contains(r, " at ") || e.From.Member != "share-1" {
			t.Errorf("redelivery of offset %d from %s: request named %q: want share-1's dropped ShareAcknowledge, its broker and time", e.Offset, e.From.Member, r)
		}
	}
	if st := res.Stats.Shares; st == nil || st.Causes[share.CauseRequest] != len(a.ShareRedelivery) || len(st.Causes) != 1 {
		t.Errorf("causes %+v: want every redelivery by %s", res.Stats.Shares, share.CauseRequest)
	}
	for _, e := range a.ShareUnknown {
		if len(e.Requests) != 1 || !strings.HasPrefix(e.Requests[0], "drop-response of ShareAcknowledge v") ||
			!strings.Contains(e.Requests[0], " from kchaos-p4-share-0 to broker ") {
			t.Errorf("share-unknown offset %d: requests %q: want share-0's dropped ShareAcknowledge answer", e.Offset, e.Requests)
		}
	}
	if n := len(a.ShareLost) + len(a.ShareDoubleAcquire) + len(a.ShareRedeliveredAfterAccept) + len(a.ShareDeliveryCount); n != 0 {
		t.Errorf("%d share violations on p4", n)
	}
	if res.Valid != Unknown {
		t.Errorf("valid %v: %q", res.Valid, res.Reasons)
	}
}
