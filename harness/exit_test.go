package harness

import (
	"fmt"
	"testing"

	"github.com/kchaos/kchaos/report"
)

// TestPageExitCode: what a row's status means for the exit code, per
// page (the engine's rule over the page's sorting of statuses).
func TestPageExitCode(t *testing.T) {
	rows := func(st ...string) []report.Row {
		var out []report.Row
		for _, s := range st {
			out = append(out, report.Row{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		page        *report.Page
		rows        []report.Row
		interrupted bool
		want        int
	}{
		{"matrix valid", report.MatrixPage, rows("valid", "valid"), false, 0},
		{"matrix invalid beats unknown", report.MatrixPage, rows("unknown", "invalid"), false, 1},
		{"matrix unchecked", report.MatrixPage, rows("valid", "unchecked"), false, 2},
		{"matrix interrupted", report.MatrixPage, rows("valid"), true, 2},
		{"matrix interrupted after invalid", report.MatrixPage, rows("invalid"), true, 1},
		{"suite not applicable counts for nothing", report.SuitePage, rows(report.CellMatch, report.CellNotApplicable), false, 0},
		{"suite no expectation", report.SuitePage, rows(report.CellNoExpectation), false, 2},
		{"suite interrupted after a differ", report.SuitePage, rows(report.CellDiffer), true, 2},
		{"audit lost", report.AuditPage, rows(report.AuditNothing, report.AuditLost, report.AuditNotRun), false, 1},
		{"audit not run", report.AuditPage, rows(report.AuditNothing, report.AuditNotRun), false, 2},
		// A gate is not green on nothing (issue 37): no row, or every row
		// skipped, is 2; --allow-empty (ExitCode's allowEmpty) makes it 0.
		{"empty", report.SuitePage, nil, false, 2},
		{"suite every cell not applicable", report.SuitePage, rows(report.CellNotApplicable, report.CellNotApplicable), false, 2},
		// A cell refused for what kchaos lacks is a skip: never green,
		// never red, and not judged.
		{"suite needs beside a match", report.SuitePage, rows(report.CellMatch, report.CellNeeds), false, 0},
		{"suite needs beside a differ", report.SuitePage, rows(report.CellNeeds, report.CellDiffer), false, 1},
		{"suite only needs", report.SuitePage, rows(report.CellNeeds, report.CellNeeds), false, 2},
	} {
		if got := ExitCode(tc.page, tc.rows, tc.interrupted, false); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name        string
		rows        []report.Row
		interrupted bool
		want        int
	}{
		{"allowed: every cell not applicable", rows(report.CellNotApplicable), false, 0},
		{"allowed: no row", nil, false, 0},
		{"allowed, but unjudged is still 2", rows(report.CellNotApplicable, report.CellUnjudged), false, 2},
		{"allowed, but interrupted is still 2", rows(report.CellNotApplicable), true, 2},
		{"allowed: a differ is still 1", rows(report.CellNotApplicable, report.CellDiffer), false, 1},
		// --allow-empty accepts what Kafka ruled out, not what kchaos lacks.
		{"allowed, but only needs is still 2", rows(report.CellNeeds), false, 2},
		{"allowed, but needs and not applicable is still 2", rows(report.CellNotApplicable, report.CellNeeds), false, 2},
	} {
		if got := ExitCode(report.SuitePage, tc.rows, tc.interrupted, true); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestNothingJudged: the message a batch that judged no row ends with.
func TestNothingJudged(t *testing.T) {
	na := report.Row{ID: "w1/share.version=1/3.9.2", Status: report.CellNotApplicable, Reason: "share groups need Kafka 4.1"}
	for _, tc := range []struct {
		name string
		page *report.Page
		rows []report.Row
		want string // "" for nil
	}{
		{"a match", report.SuitePage, []report.Row{na, {Status: report.CellMatch}}, ""},
		{"a differ", report.SuitePage, []report.Row{{Status: report.CellDiffer}}, ""},
		{"every cell not applicable", report.SuitePage, []report.Row{na, na},
			"nothing was judged: 2 cells, 2 not-applicable (w1/share.version=1/3.9.2: share groups need Kafka 4.1)"},
		{"unjudged only", report.SuitePage, []report.Row{{Status: report.CellUnjudged}}, "nothing was judged: 1 cells, 1 unjudged"},
		{"no row", report.SuitePage, nil, "nothing was judged: no cells"},
		{"matrix of unknowns", report.MatrixPage, []report.Row{{Status: "unknown"}}, "nothing was judged: 1 rows, 1 unknown"},
		{"audit with a story", report.AuditPage, []report.Row{{Status: report.AuditNothing}}, ""},
	} {
		err := NothingJudged(tc.page, tc.rows)
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
