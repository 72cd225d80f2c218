package checker

import (
	"errors"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// Share and metadata ops as the required-fields table of docs/HISTORY.md
// lists them: each refusal beside its near miss, the same shape with the
// field there (or a legal value), which is judged, not refused.
const (
	shSub    = `{"group":"q","member":"m0","topic":"t","lock_ms":1000,"delivery_limit":3}`
	shPollIn = `{"group":"q","member":"m0","topic":"t"}`
	shRec    = `{"partition":0,"offset":0,"value":"a","delivery_count":1}`
	shAckIn  = `{"group":"q","member":"m0","topic":"t","acks":[{"partition":0,"offset":0,"value":"a","delivery_count":1,"status":"accept"}]}`
)

// shareOps is a member subscribing (lines 1-2), polling with records
// (lines 3-4) and acking (lines 5-6, when ackDone is not empty).
func shareOps(pollDone, ackDone string) []string {
	out := []string{ev(10, 1, "invoke", "share-subscribe", shSub), ev(20, 1, "ok", "share-subscribe", shSub),
		ev(30, 1, "invoke", "share-poll", shPollIn), ev(40, 1, "ok", "share-poll", pollDone)}
	if ackDone != "" {
		out = append(out, ev(50, 1, "invoke", "share-ack", shAckIn), ev(60, 1, "ok", "share-ack", ackDone))
	}
	return out
}

func polled(rs ...string) string {
	return `{"group":"q","member":"m0","topic":"t","records":[` + strings.Join(rs, ",") + `]}`
}

func ackedAs(status, outcome string) string {
	return `{"group":"q","member":"m0","topic":"t","acks":[{"partition":0,"offset":0,"value":"a","delivery_count":1,"status":"` +
		status + `","outcome":"` + outcome + `"}]}`
}

func metaRead(node string, done string) []string {
	return []string{ev(10, 9, "invoke", "metadata-read", `{"node":`+node+`}`), ev(20, 9, "ok", "metadata-read", done)}
}

func TestShareAndMetadataBadInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		line  int    // 0: accepted
		field string // named by the refusal
	}{
		{"share-poll record without delivery_count", shareOps(polled(`{"partition":0,"offset":0,"value":"a"}`), ""), 4, `"delivery_count"`},
		{"almost: a delivery_count of 0 is judged (share-delivery-count)", shareOps(polled(`{"partition":0,"offset":0,"value":"a","delivery_count":0}`), ""), 0, ""},
		{"share-poll record without value", shareOps(polled(`{"partition":0,"offset":0,"delivery_count":1}`), ""), 4, `"value"`},
		{"share-poll record without offset", shareOps(polled(`{"partition":0,"value":"a","delivery_count":1}`), ""), 4, `"offset"`},
		{"share-poll ok naming another member", shareOps(`{"group":"q","member":"m9","topic":"t","records":[`+shRec+`]}`, ""), 4, `"member"`},
		{"share-ack reported reject for an accept", shareOps(polled(shRec), ackedAs("reject", "ok")), 6, `status "reject"`},
		{"almost: reported accept, as asked", shareOps(polled(shRec), ackedAs("accept", "ok")), 0, ""},
		{"share-ack completion naming an ack not asked", shareOps(polled(shRec),
			`{"group":"q","topic":"t","acks":[{"partition":0,"offset":0,"value":"a","delivery_count":2,"status":"accept","outcome":"ok"}]}`), 6, "did not ack"},
		{"share-ack completion ack without delivery_count", shareOps(polled(shRec),
			`{"group":"q","topic":"t","acks":[{"partition":0,"offset":0,"value":"a","status":"accept","outcome":"ok"}]}`), 6, `"delivery_count"`},
		{"almost: an ack completion without a value", append(shareOps(polled(shRec), ""),
			ev(50, 1, "invoke", "share-ack", shAckIn), ev(60, 1, "fail", "share-ack", "", "INVALID_RECORD_STATE")), 0, ""},
		{"share-ack invoke without delivery_count", append(shareOps(polled(shRec), ""),
			ev(50, 1, "invoke", "share-ack", `{"group":"q","topic":"t","acks":[{"partition":0,"offset":0,"value":"a","status":"accept"}]}`)), 5, `"delivery_count"`},
		{"share-ack of a delivery never made", append(shareOps(polled(shRec), ""),
			ev(50, 1, "invoke", "share-ack", `{"group":"q","topic":"t","acks":[{"partition":0,"offset":3,"value":"d","delivery_count":1,"status":"accept"}]}`)), 5, "never delivered"},
		{"share-subscribe without topic", one(ev(10, 1, "invoke", "share-subscribe", `{"group":"q","member":"m0","lock_ms":1000,"delivery_limit":3}`)), 1, `"topic"`},
		{"share-subscribe ok with another delivery limit", []string{ev(10, 1, "invoke", "share-subscribe", shSub),
			ev(20, 1, "ok", "share-subscribe", strings.Replace(shSub, `"delivery_limit":3`, `"delivery_limit":5`, 1))}, 2, "DeliveryLimit:5"},
		{"share-offsets with a negative start offset", []string{ev(10, 2, "invoke", "share-offsets", `{"group":"q","topic":"t"}`),
			ev(20, 2, "ok", "share-offsets", `{"group":"q","topic":"t","start_offsets":{"0":-1},"drained":true}`)}, 2, `"start_offsets"`},
		{"metadata-read invoke without node", metaRead(`null`, `{"node":0,"role":"broker","log_end_offset":5}`), 1, `"node"`},
		{"metadata-read ok without log_end_offset", metaRead(`0`, `{"node":0,"role":"broker"}`), 2, `"log_end_offset"`},
		{"almost: metadata-read ok with an unknown log end offset", metaRead(`0`, `{"node":0,"role":"broker","log_end_offset":-1}`), 0, ""},
		{"metadata-read ok of another node", metaRead(`0`, `{"node":1,"role":"broker","log_end_offset":5}`), 2, `"node"`},
		{"metadata-read ok with another role", metaRead(`0`, `{"node":0,"role":"voter","log_end_offset":5}`), 2, `"role"`},
		{"create-topic ok naming another topic", []string{ev(10, 3, "invoke", "create-topic", `{"topic":"m-1","partitions":2}`),
			ev(20, 3, "ok", "create-topic", `{"topic":"m-2","partitions":2}`)}, 2, `"topic"`},
		{"almost: create-topic fail without a value", []string{ev(10, 3, "invoke", "create-topic", `{"topic":"m-1","partitions":2}`),
			ev(20, 3, "fail", "create-topic", "", "TOPIC_ALREADY_EXISTS")}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := checkReader(strings.NewReader(lines2hist(c.lines...)), Options{})
			if c.line == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var le *histories.LineError
			if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("error %v, want a LineError at line %d naming %s", err, c.line, c.field)
			}
		})
	}
}

// TestShareStatsInResults: a history with share ops has stats.shares
// (acks_of_final_records among them), one without has none, so its
// results.json is as it was.
func TestShareStatsInResults(t *testing.T) {
	res, err := checkReader(strings.NewReader(lines2hist(shareOps(polled(shRec), ackedAs("accept", "ok"))...)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats.Shares
	if st == nil || st.Deliveries != 1 || st.Records != 1 || st.Acks["accept ok"] != 1 {
		t.Fatalf("stats.shares %+v, want one delivery of one record and one accept ok", st)
	}
	b, err := res.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"shares":{"deliveries":1,"records":1,"acks":{"accept ok":1},"acks_of_final_records":0}`) {
		t.Fatalf("results.json %s (%v): want stats.shares", b, err)
	}
	plain, err := checkReader(strings.NewReader(lines2hist(send(0, 10, 20, 0, "a", "ok", 0)...)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := plain.MarshalJSON(); plain.Stats.Shares != nil || strings.Contains(string(b), `"shares"`) {
		t.Fatalf("a history without share ops has stats.shares: %s", b)
	}
}

// TestShareNothingDelivered: a share group whose members polled and were
// delivered nothing leaves its checks unexercised (a cause of unknown,
// and results.json's unexercised); one delivery and they were exercised.
func TestShareNothingDelivered(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"polled nothing", shareOps(polled(), ""), true},
		{"one delivery", shareOps(polled(shRec), ackedAs("accept", "ok")), false},
	} {
		res, err := checkReader(strings.NewReader(lines2hist(tc.lines...)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(res.Unexercised, "\n")
		if strings.Contains(got, "share group: no record was delivered") != tc.want {
			t.Errorf("%s: unexercised %q, want the share line %v", tc.name, res.Unexercised, tc.want)
		}
		if tc.want && res.Valid != Unknown {
			t.Errorf("%s: verdict %v, want unknown", tc.name, res.Valid)
		}
	}
}
