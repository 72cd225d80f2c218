package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/metadata"
)

// TestVoterAutoJoinFromRunJSON: CheckPath hands the metadata domain each
// controller's controller.quorum.auto.join.enable from run.json's
// controller_configs. A removed controller left running that votes again
// with no add-controller is excused with auto-join on (a note), lost with
// it off, and unknown when run.json records no controller config.
func TestVoterAutoJoinFromRunJSON(t *testing.T) {
	const history = `{"index":0,"time":1000000000,"process":-2,"type":"ok","f":"quorum","value":{"leader_id":1000,"leader_epoch":3,"high_watermark":9,"voters":[{"id":1000,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1},{"id":1001,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1},{"id":1002,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1}],"observers":[]}}
{"index":1,"time":1000000000,"process":0,"type":"invoke","f":"send","value":{"topic":"orders","partition":0,"value":"a"}}
{"index":2,"time":1100000000,"process":0,"type":"ok","f":"send","value":{"topic":"orders","partition":0,"value":"a","offset":0}}
{"index":3,"time":2000000000,"process":-1,"type":"invoke","f":"remove-controller","value":{"fault":"remove-controller"}}
{"index":4,"time":2500000000,"process":-1,"type":"ok","f":"remove-controller","value":{"fault":"remove-controller","nodes":[1002],"details":{"node":1002,"directory_id":"d2","answers":[{"code":"NONE"}]}}}
{"index":5,"time":4000000000,"process":-2,"type":"ok","f":"quorum","value":{"asked":3900000000,"leader_id":1000,"leader_epoch":3,"high_watermark":9,"voters":[{"id":1000,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1},{"id":1001,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1},{"id":1002,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1}],"observers":[]}}
{"index":6,"time":5000000000,"process":9,"type":"invoke","f":"final-read","value":{"topic":"orders","partitions":[0]}}
{"index":7,"time":5100000000,"process":9,"type":"ok","f":"final-read","value":{"topic":"orders","records":[{"partition":0,"offset":0,"value":"a","leader_epoch":1}],"end_offsets":{"0":1}}}
`
	for _, tc := range []struct {
		name    string
		configs string // run.json's controller_configs; "" none
		valid   Verdict
		counted int
		reason  string
	}{
		{"auto-join on", `{"1000":{"` + metadata.AutoJoinKey + `":"true"},"1001":{"` + metadata.AutoJoinKey + `":"true"},"1002":{"` + metadata.AutoJoinKey + `":"true"}}`,
			Valid, 0, "controller.quorum.auto.join.enable=true on 1002"},
		{"auto-join off", `{"1000":{},"1001":{},"1002":{"` + metadata.AutoJoinKey + `":"false"}}`,
			Invalid, 1, "voter-change-lost: 1 (first: remove-controller of voter 1002"},
		{"not recorded", "", Unknown, 0, "while it may have been running with auto-join on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run := `{"topic":"orders","partitions":1,"producer":{"idempotent":false,"retries":0}`
			if tc.configs != "" {
				run += `,"controller_configs":` + tc.configs
			}
			for name, body := range map[string]string{HistoryFile: history, "run.json": run + "}"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, _, err := CheckPath(dir, Options{SkipLinearizability: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tc.valid || res.Anomalies.CountedVoters() != tc.counted ||
				!strings.Contains(strings.Join(res.Reasons, "\n"), tc.reason) {
				t.Fatalf("valid %v, counted %d, reasons %q; want %v, %d, %q", res.Valid, res.Anomalies.CountedVoters(), res.Reasons, tc.valid, tc.counted, tc.reason)
			}
		})
	}
}

// TestMetadataWithoutReadUnknown: a history whose records are all judged
// valid but whose acknowledged metadata change no broker's metadata read
// follows is unknown, and the reasons say why; with the read it is valid.
func TestMetadataWithoutReadUnknown(t *testing.T) {
	const base = `{"index":0,"time":1000000000,"process":0,"type":"invoke","f":"send","value":{"topic":"orders","partition":0,"value":"a"}}
{"index":1,"time":1100000000,"process":0,"type":"ok","f":"send","value":{"topic":"orders","partition":0,"value":"a","offset":0}}
{"index":2,"time":1200000000,"process":1,"type":"invoke","f":"create-topic","value":{"topic":"m-1","partitions":1}}
{"index":3,"time":1300000000,"process":1,"type":"ok","f":"create-topic","value":{"topic":"m-1","partitions":1}}
{"index":4,"time":5000000000,"process":9,"type":"invoke","f":"final-read","value":{"topic":"orders","partitions":[0]}}
{"index":5,"time":5100000000,"process":9,"type":"ok","f":"final-read","value":{"topic":"orders","records":[{"partition":0,"offset":0,"value":"a","leader_epoch":1}],"end_offsets":{"0":1}}}
`
	const read = `{"index":6,"time":6000000000,"process":8,"type":"invoke","f":"metadata-read","value":{"node":0}}
{"index":7,"time":6100000000,"process":8,"type":"ok","f":"metadata-read","value":{"node":0,"role":"broker","topics":{"m-1":{"partitions":1}},"log_end_offset":5}}
`
	for _, tc := range []struct {
		name, history string
		want          Verdict
		reason        string
	}{
		{"no read", base, Unknown, "metadata-lost: 1 acknowledged metadata changes (first: create-topic m-1 by p1 acknowledged at 1.300 s) and no broker's completed metadata read"},
		{"a broker's read", base + read, Valid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := checkReader(strings.NewReader(tc.history), Options{SkipLinearizability: true})
			if err != nil {
				t.Fatal(err)
			}
			reasons := strings.Join(res.Reasons, "\n")
			if res.Valid != tc.want || tc.reason != "" && !strings.Contains(reasons, tc.reason) {
				t.Fatalf("valid %v, reasons %q; want %v, %q", res.Valid, res.Reasons, tc.want, tc.reason)
			}
		})
	}
}
