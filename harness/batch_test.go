package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/report"
)

// TestRunBatchWithoutClusters drives the engine on cells that never start
// a cluster: a cell planned as not runnable keeps its planned row, an
// interruption stops the loop before the next cell (listing the rest as
// not run when the plan asks), the pages are written, and the exit code
// is the page's rule.
func TestRunBatchWithoutClusters(t *testing.T) {
	na := Cell{Row: report.Row{ID: "s8/elr=on/3.9.2", Status: report.CellNotApplicable, Reason: "ELR needs 4.0"}}
	story := Cell{Row: report.Row{ID: "s7", Description: "power loss"}}
	for _, tc := range []struct {
		name      string
		plan      *Plan
		cancel    bool
		rows      int
		notRun    int
		exit      int
		pageFiles []string
	}{
		// Nothing judged is not a pass (issue 37): exit 2, its pages
		// written.
		{"suite of not-applicable cells", &Plan{Cells: []Cell{na, na}, What: "suite name", Name: "x", Prefix: "suite-",
			Batch: func(rows []report.Row) report.Batch {
				return report.SuiteBatch(report.SuiteFile{Name: "x", Cells: rows})
			}},
			false, 2, 0, 2, []string{"suite.md", "suite.html", "suite.json", "junit.xml"}},
		{"suite interrupted before its first cell", &Plan{Cells: []Cell{na}, What: "suite name", Name: "x", Prefix: "suite-",
			Batch: func(rows []report.Row) report.Batch {
				return report.SuiteBatch(report.SuiteFile{Name: "x", Cells: rows})
			}},
			true, 0, 0, 2, []string{"suite.md"}},
		{"audit interrupted lists its stories", &Plan{Cells: []Cell{story, story}, Prefix: "audit", NotRun: report.AuditNotRun,
			ListUnstarted: true, Batch: func(rows []report.Row) report.Batch { return report.AuditBatch(report.Audit{Kafka: "4.4.0"}, rows) }},
			true, 2, 2, 2, []string{"audit.md", "audit.html", "audit.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			res, err := RunBatch(ctx, tc.plan, BatchOptions{Options: Options{Store: t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			notRun := 0
			for _, r := range res.Rows {
				if r.NotRun {
					notRun++
					if r.Status != tc.plan.NotRun || !strings.HasPrefix(r.Reason, report.NotRun) || r.Verdict != report.Unchecked {
						t.Errorf("not-run row %+v", r)
					}
				}
			}
			if len(res.Rows) != tc.rows || notRun != tc.notRun || res.Interrupted != tc.cancel {
				t.Errorf("%d rows (%d not run), interrupted %v; want %d (%d), %v", len(res.Rows), notRun, res.Interrupted, tc.rows, tc.notRun, tc.cancel)
			}
			if got := res.ExitCode(); got != tc.exit {
				t.Errorf("exit %d, want %d", got, tc.exit)
			}
			for _, f := range tc.pageFiles {
				if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
					t.Errorf("page %s: %v", f, err)
				}
			}
		})
	}
}

// TestMatrixPlanRuns: each combination runs --runs times, each run a cell
// of its own with run=N among its settings; a combination Kafka rules out
// is a row with its error that never runs, and exits 2.
func TestMatrixPlanRuns(t *testing.T) {
	cells := []Cell{{Row: report.Row{Settings: map[string]string{"acks": "1"}}}, {Row: report.Row{Settings: map[string]string{"acks": "all"},
		Status: string(report.Unchecked), Reason: "conflict"}}}
	p := matrixPlan("s2", cells, 2)
	var ids []string
	for _, c := range p.Cells {
		ids = append(ids, c.Row.ID)
	}
	if got := strings.Join(ids, ";"); got != "acks=1 run=1;acks=1 run=2;acks=all run=1;acks=all run=2" {
		t.Errorf("cells %s", got)
	}
	if cells[0].Row.Settings["run"] != "" {
		t.Error("MatrixPlan changed the planned cell's settings")
	}
	rows := []report.Row{{Status: string(report.Valid)}, p.Cells[2].Row}
	if got := ExitCode(report.MatrixPage, rows, false, false); got != 2 {
		t.Errorf("exit %d with a row that could not run, want 2", got)
	}
}
