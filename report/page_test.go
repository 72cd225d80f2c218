package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPageJSONShapes: each page's JSON file keeps the field names and
// order it had before the pages shared one writer (matrix.json's
// "config" and "error", suite.json's "cells" and "outcome"), leaving out
// only the fields it always left out when empty.
func TestPageJSONShapes(t *testing.T) {
	row := Row{ID: "s1/-/4.4.0", Scenario: "s1", Kafka: "4.4.0", Status: CellMatch, Settings: map[string]string{"acks": "1"},
		Summary: "no anomalies", Reason: "why", Measure: Measure{Verdict: Valid, Lost: 1, Offline: map[string]float64{"t-0": 1}}}
	for _, tc := range []struct {
		name string
		b    Batch
		file string
		keys string // the keys of the JSON file, in order, top level and then the first row's
	}{
		{"matrix", MatrixBatch("s1", []Row{row}), "matrix.json",
			"columns rows config run_dir scenario verdict acked_lost offsets_reused offline_seconds error"},
		{"suite", SuiteBatch(SuiteFile{Name: "seeds", Cells: []Row{row}}), "suite.json",
			"name cells id scenario settings kafka status outcome reason verdict acked_lost"},
		{"audit", AuditBatch(Audit{Kafka: "4.4.0"}, []Row{row}), "audit.json",
			"kafka rows story description status verdict acked acked_lost offsets_reused offline_seconds reason facts"},
	} {
		dir := t.TempDir()
		if err := tc.b.Write(dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		// Keys at the top level (2 spaces) and of a row (6 spaces).
		var keys []string
		for _, m := range regexp.MustCompile(`(?m)^(  |      )"([a-z_]+)":`).FindAllStringSubmatch(string(b), -1) {
			keys = append(keys, m[2])
		}
		if got := strings.Join(keys, " "); got != tc.keys {
			t.Errorf("%s: keys\n%s\nwant\n%s\n%s", tc.name, got, tc.keys, b)
		}
	}
}

// TestPageExitCode: what a row's status means for the exit code, per page.
func TestPageExitCode(t *testing.T) {
	rows := func(st ...string) []Row {
		var out []Row
		for _, s := range st {
			out = append(out, Row{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		page        *Page
		rows        []Row
		interrupted bool
		want        int
	}{
		{"matrix valid", MatrixPage, rows("valid", "valid"), false, 0},
		{"matrix invalid beats unknown", MatrixPage, rows("unknown", "invalid"), false, 1},
		{"matrix unchecked", MatrixPage, rows("valid", "unchecked"), false, 2},
		{"matrix interrupted", MatrixPage, rows("valid"), true, 2},
		{"matrix interrupted after invalid", MatrixPage, rows("invalid"), true, 1},
		{"suite not applicable counts for nothing", SuitePage, rows(CellMatch, CellNotApplicable), false, 0},
		{"suite no expectation", SuitePage, rows(CellNoExpectation), false, 2},
		{"suite interrupted after a differ", SuitePage, rows(CellDiffer), true, 2},
		{"audit lost", AuditPage, rows(AuditNothing, AuditLost, AuditNotRun), false, 1},
		{"audit not run", AuditPage, rows(AuditNothing, AuditNotRun), false, 2},
		// A gate is not green on nothing (issue 37): no row, or every row
		// skipped, is 2; --allow-empty (Exit's allowEmpty) makes it 0.
		{"empty", SuitePage, nil, false, 2},
		{"suite every cell not applicable", SuitePage, rows(CellNotApplicable, CellNotApplicable), false, 2},
	} {
		if got := tc.page.ExitCode(tc.rows, tc.interrupted); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name        string
		rows        []Row
		interrupted bool
		want        int
	}{
		{"allowed: every cell not applicable", rows(CellNotApplicable), false, 0},
		{"allowed: no row", nil, false, 0},
		{"allowed, but unjudged is still 2", rows(CellNotApplicable, CellUnjudged), false, 2},
		{"allowed, but interrupted is still 2", rows(CellNotApplicable), true, 2},
		{"allowed: a differ is still 1", rows(CellNotApplicable, CellDiffer), false, 1},
	} {
		if got := SuitePage.Exit(tc.rows, tc.interrupted, true); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestNothingJudged: the message a batch that judged no row ends with.
func TestNothingJudged(t *testing.T) {
	na := Row{ID: "w1/share.version=1/3.9.2", Status: CellNotApplicable, Reason: "share groups need Kafka 4.1"}
	for _, tc := range []struct {
		name string
		page *Page
		rows []Row
		want string // "" for nil
	}{
		{"a match", SuitePage, []Row{na, {Status: CellMatch}}, ""},
		{"a differ", SuitePage, []Row{{Status: CellDiffer}}, ""},
		{"every cell not applicable", SuitePage, []Row{na, na},
			"nothing was judged: 2 cells, 2 not-applicable (w1/share.version=1/3.9.2: share groups need Kafka 4.1)"},
		{"unjudged only", SuitePage, []Row{{Status: CellUnjudged}}, "nothing was judged: 1 cells, 1 unjudged"},
		{"no row", SuitePage, nil, "nothing was judged: no cells"},
		{"matrix of unknowns", MatrixPage, []Row{{Status: "unknown"}}, "nothing was judged: 1 rows, 1 unknown"},
		{"audit with a story", AuditPage, []Row{{Status: AuditNothing}}, ""},
	} {
		err := tc.page.NothingJudged(tc.rows)
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
