package harness

import (
	"context"
	"time"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// A batch runs many cells, each on a fresh cluster, and keeps one page
// family of their rows. matrix, suite and audit are three plans for the
// one engine here (RunBatch): the cells, the run loop, interruption, the
// rows, the pages and the exit code are its; what differs (which cells,
// how a run is judged, what the page shows) is each plan's data.
//
// Words, one meaning each: a cell is one scenario under one set of
// settings on one Kafka version; its run gives a RunResult (the folder,
// the checker's verdict); its row (report.Row) is what the pages show of
// it; its status is the row judged by the plan (a verdict in a matrix,
// match or differ against the scenario's Expectation in a suite, lost or
// not in an audit).

// Cell is one scenario under one set of settings on one Kafka version,
// loaded and checked before any cluster starts.
type Cell struct {
	// Row is the cell's row before it runs: its ID, scenario, settings and
	// version, and for a cell that cannot run its Status and Reason.
	Row report.Row
	// Scenario is what runs; nil when the cell does not (Row says why,
	// and Err when a load refused it).
	Scenario *scenario.Scenario
	Err      error
}

// Plan is a batch ready to run.
type Plan struct {
	Cells []Cell
	// What, Name and Prefix make the batch's store folder,
	// store/<Prefix><Name>/<timestamp>/ (What names Name in an error; ""
	// when no user's name is part of the path).
	What, Name, Prefix string
	// Judge sets a run cell's Status (and Reason, Checks, Summary) from
	// what its run gave: a matrix shows the verdict, a suite judges
	// against the expectation, an audit says what was lost.
	Judge func(c Cell, row *report.Row, ran Ran)
	// NotRun is the Status of a cell whose story never ran; Failed that of
	// a cell whose run failed after it started (neither can be judged).
	NotRun, Failed string
	// Batch is the page family of the rows so far.
	Batch func(rows []report.Row) report.Batch
	// ListUnstarted lists the cells an interruption kept from starting,
	// as not run: a page that must say which cells it has nothing on.
	ListUnstarted bool
	// Overridden are the user's keys kchaos replaced (for each run's
	// report).
	Overridden []string
}

// Ran is what a cell's run gave: its result, and the run folder's
// metrics and what kept them from being measured.
type Ran struct {
	Result     *RunResult
	Metrics    expect.Metrics
	MetricsErr error
}

// BatchOptions tune a batch.
type BatchOptions struct {
	Options
	// OnRow is told about each row as it is written.
	OnRow func(done, total int, r report.Row)
	// AllowEmpty accepts a batch whose every cell was skipped (not
	// applicable) as passed (--allow-empty); by default nothing judged
	// is exit 2.
	AllowEmpty bool
}

// BatchResult is a finished (or interrupted) batch.
type BatchResult struct {
	Dir         string
	Rows        []report.Row
	Interrupted bool
	Page        *report.Page
	AllowEmpty  bool
}

// ExitCode maps the rows to the batch's exit code (its page's rule, with
// AllowEmpty).
func (r *BatchResult) ExitCode() int { return r.Page.Exit(r.Rows, r.Interrupted, r.AllowEmpty) }

// NothingJudged says why, when the batch judged no row (the page's
// words); nil when it judged one.
func (r *BatchResult) NothingJudged() error { return r.Page.NothingJudged(r.Rows) }

// RunBatch runs every cell of plan on a fresh cluster through Run and
// writes the batch's pages after each row. When ctx ends (a signal
// through harness/shutdown), the cell under way is interrupted (healed,
// torn down, checked: see Run), its row written, and no further cell
// starts. An error is a store that cannot be made or written; the result
// is never nil then unless the folder could not be made.
func RunBatch(ctx context.Context, plan *Plan, opts BatchOptions) (*BatchResult, error) {
	dir, err := makeStoreDir(opts.Store, plan.What, plan.Name, plan.Prefix)
	if err != nil {
		return nil, err
	}
	res := &BatchResult{Dir: dir, Page: plan.Batch(nil).Page, AllowEmpty: opts.AllowEmpty}
	write := func() error { return plan.Batch(res.Rows).Write(dir) }
	runOpts := opts.Options
	runOpts.Overridden = plan.Overridden
	for i, c := range plan.Cells {
		if ctx.Err() != nil {
			break
		}
		row := c.Row
		if c.Scenario != nil {
			row = runCell(ctx, plan, c, runOpts)
		}
		res.Rows = append(res.Rows, row)
		if err := write(); err != nil {
			return res, err
		}
		if opts.OnRow != nil {
			opts.OnRow(i+1, len(plan.Cells), row)
		}
	}
	res.Interrupted = ctx.Err() != nil
	if plan.ListUnstarted {
		for _, c := range plan.Cells[len(res.Rows):] {
			row := c.Row
			row.NotRun, row.Status, row.Verdict = true, plan.NotRun, report.Unchecked
			row.Reason = report.NotRun + "interrupted before it started"
			res.Rows = append(res.Rows, row)
		}
	}
	return res, write()
}

// runCell runs one cell and judges its row.
func runCell(ctx context.Context, plan *Plan, c Cell, opts Options) report.Row {
	row := c.Row
	// Each run gets its own copy: Run fills the seed in.
	s := *c.Scenario
	begin := time.Now()
	out, err := Run(ctx, &s, opts)
	row.Seconds = time.Since(begin).Seconds()
	row.Verdict = report.Unchecked
	if out != nil {
		row.RunDir = out.Dir
	}
	switch {
	case err != nil && (out == nil || out.Result == nil):
		// The story never ran (a cluster that could not start, a missing
		// image): the row carries no figure, only why.
		row.NotRun, row.Status, row.Reason = true, plan.NotRun, report.NotRun+err.Error()
		return row
	case err != nil:
		row.Status, row.Reason = plan.Failed, "the run failed: "+err.Error()
		return row
	}
	measured, m, merr := measure(out.Dir, out.pass)
	row.Measure = measured.Measure
	row.Acked = int(m[expect.Acked])
	row.StorySeconds = m[expect.HistorySeconds]
	plan.Judge(c, &row, Ran{Result: out, Metrics: m, MetricsErr: merr})
	return row
}

// scheduleProblem is the reason of a run whose nemesis schedule did not
// play out: the story may not have happened.
func scheduleProblem(out *RunResult) string {
	if out.NemesisErr == nil {
		return ""
	}
	return "the schedule did not play out: " + out.NemesisErr.Error()
}
