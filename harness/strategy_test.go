package harness

import (
	"context"
	"fmt"
	"testing"

	"github.com/kchaos/kchaos/report"
)

// adaptive yields a cell per row so far until it has n rows: a strategy
// that decides its next cell from what came before.
type adaptive struct{ n int }

func (a adaptive) Next(rows []report.Row) (Cell, bool) {
	if len(rows) >= a.n {
		return Cell{}, false
	}
	return Cell{Row: report.Row{ID: fmt.Sprintf("after-%d", len(rows)), Status: report.CellNotApplicable}}, true
}

func (adaptive) Left() []Cell { return nil }

// TestRunBatchStrategy: the engine's one loop runs a strategy that
// decides each cell from the rows before it (its progress total unknown,
// 0), and a fixed list interrupted after its first row lists the rest as
// not run, the cell the engine took early included.
func TestRunBatchStrategy(t *testing.T) {
	suite := func(rows []report.Row) report.Batch {
		return report.SuiteBatch(report.SuiteFile{Name: "x", Cells: rows})
	}
	var totals []int
	res, err := RunBatch(context.Background(), &Plan{Strategy: adaptive{3}, What: "suite name", Name: "x", Prefix: "suite-", Batch: suite},
		BatchOptions{Options: Options{Store: t.TempDir()}, OnRow: func(_, total int, _ report.Row) { totals = append(totals, total) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Rows[2].ID != "after-2" || fmt.Sprint(totals) != "[0 0 0]" {
		t.Errorf("rows %+v, totals %v", res.Rows, totals)
	}

	story := func(id string) Cell { return Cell{Row: report.Row{ID: id}} }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err = RunBatch(ctx, &Plan{Cells: []Cell{story("s1"), story("s7"), story("s9")}, Prefix: "audit", NotRun: report.AuditNotRun,
		ListUnstarted: true, Batch: func(rows []report.Row) report.Batch { return report.AuditBatch(report.Audit{Kafka: "4.4.0"}, rows) }},
		BatchOptions{Options: Options{Store: t.TempDir()}, OnRow: func(done, total int, _ report.Row) {
			if done != 1 || total != 3 {
				t.Errorf("row %d of %d, want 1 of 3", done, total)
			}
			cancel()
		}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res.Rows {
		ids = append(ids, fmt.Sprintf("%s/%v", r.ID, r.NotRun))
	}
	if fmt.Sprint(ids) != "[s1/false s7/true s9/true]" || !res.Interrupted {
		t.Errorf("rows %v, interrupted %v", ids, res.Interrupted)
	}
}
