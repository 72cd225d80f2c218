package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// TestUnexercisedRunIsNotJudged: a run whose checks held vacuously (the
// checker's Result.Unexercised: Kafka acknowledged nothing) is no pass of
// a suite's expectation, even when every metric its checks read holds
// (lost-write == 0 of nothing acked); a matrix and an audit row say why
// it is unknown. A run that acknowledged something is judged as before.
func TestUnexercisedRunIsNotJudged(t *testing.T) {
	s1, err := scenario.Load("s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	met := expect.Metrics{"lost-write": 0, "offset-reuse": 0, "offline_seconds": 12, "untils_timed_out": 0}
	why := "nothing was acknowledged: 460 sends (460 failed, 0 unknown; INVALID_RECORD 460); no acknowledged record to check for loss"
	for _, tc := range []struct {
		name        string
		unexercised []string
		nemesisErr  error
		verdict     checker.Verdict
		row         report.RunVerdict
		suite       string
		reason      string
	}{
		{"nothing acknowledged", []string{why}, nil, checker.Unknown, report.Unknown, report.CellUnjudged, "the run exercised nothing its checks judge: " + why},
		// Nothing acknowledged leaves an until on the ISR waiting too (a
		// real s1 whose every send was too large): both are said.
		{"nothing acknowledged, the schedule stuck", []string{why}, errors.New("until partition 0 isr [0]: not within 30s"), checker.Unknown, report.Unknown,
			report.CellUnjudged, "the schedule did not play out: until partition 0 isr [0]: not within 30s; the run exercised nothing its checks judge: " + why},
		{"acknowledged", nil, nil, checker.Valid, report.Valid, report.CellMatch, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := Ran{Result: &RunResult{Result: &checker.Result{Valid: tc.verdict, Unexercised: tc.unexercised}, NemesisErr: tc.nemesisErr}, Metrics: met}
			var row report.Row
			judgeExpectation(Cell{Scenario: s1}, &row, ran)
			if row.Status != tc.suite || row.Reason != tc.reason {
				t.Errorf("suite: status %q reason %q, want %q %q", row.Status, row.Reason, tc.suite, tc.reason)
			}
			row = report.Row{Measure: report.Measure{Verdict: tc.row}}
			judgeVerdict(Cell{Scenario: s1}, &row, ran)
			if row.Reason != tc.reason {
				t.Errorf("matrix: reason %q, want %q", row.Reason, tc.reason)
			}
			row = report.Row{Measure: report.Measure{Verdict: tc.row}}
			judgeAudit(Cell{Scenario: s1}, &row, ran)
			if want := map[bool]string{true: report.AuditUnknown, false: report.AuditNothing}[tc.reason != ""]; row.Status != want ||
				!strings.Contains(row.Reason, tc.reason) {
				t.Errorf("audit: status %q reason %q, want %q naming %q", row.Status, row.Reason, want, tc.reason)
			}
		})
	}
}
