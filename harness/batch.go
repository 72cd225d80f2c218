package harness

import (
	"context"
	"time"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// A batch runs many cells and keeps one page family of their rows.
// matrix, suite and audit are three plans for the one engine here
// (RunBatch): the run loop, the clusters the cells run on (Clusters),
// interruption, the rows, the pages and the exit code (ExitCode) are its;
// what differs (which cells, from a fixed list or a Strategy, how a run
// is judged, what the page shows) is each plan's data.
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
	// Cells are the cells to run, in order, unless Strategy yields them.
	Cells []Cell
	// Strategy, when set, yields the cells instead of Cells.
	Strategy Strategy
	// Clusters decides which cluster each cell runs on (nil: a fresh one
	// each, what matrix, suite and audit want: a cell's figures must not
	// depend on what the cell before it left). The engine announces each
	// next cell to it when the strategy knows it, and closes it at the
	// end.
	Clusters *Clusters
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

// ExitCode maps the rows to the batch's exit code (the engine's rule,
// ExitCode, over the page's statuses, with AllowEmpty).
func (r *BatchResult) ExitCode() int { return ExitCode(r.Page, r.Rows, r.Interrupted, r.AllowEmpty) }

// AllowedEmpty reports whether --allow-empty would have made the batch's
// rows pass (every row skipped, none failed): a batch that exits 2 on
// nothing judged says so.
func (r *BatchResult) AllowedEmpty() bool {
	return !r.Interrupted && ExitCode(r.Page, r.Rows, false, true) == 0
}

// NothingJudged says why, when the batch judged no row; nil when it
// judged one.
func (r *BatchResult) NothingJudged() error { return NothingJudged(r.Page, r.Rows) }

// RunBatch runs every cell of plan through Run, each on the cluster
// plan.Clusters gives (a fresh one by default), and writes the batch's
// pages after each row. When ctx ends (a signal
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
	runOpts.Overridden, runOpts.Clusters = plan.Overridden, plan.Clusters
	defer plan.Clusters.Close()
	st := plan.Strategy
	if st == nil {
		st = &cellList{cells: plan.Cells}
	}
	src := &cellSource{st: st}
	total := len(st.Left()) // 0: decided as the batch goes
	for ctx.Err() == nil {
		c, after, ok := src.next(res.Rows)
		if !ok {
			break
		}
		row := c.Row
		if c.Scenario != nil {
			if after != nil && after.Scenario != nil {
				plan.Clusters.Announce(after.Scenario, opts.Store)
			} else {
				plan.Clusters.Announce(nil, "")
			}
			row = runCell(ctx, plan, c, runOpts)
		}
		res.Rows = append(res.Rows, row)
		if err := write(); err != nil {
			return res, err
		}
		if opts.OnRow != nil {
			opts.OnRow(len(res.Rows), total, row)
		}
	}
	res.Interrupted = ctx.Err() != nil
	if plan.ListUnstarted {
		for _, c := range src.left() {
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
	begin := time.Now()
	out, err := Run(ctx, c.Scenario, opts) // the engine's own copy (cellSource)
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

// Strategy yields a batch's cells one at a time, so that the engine has
// one loop whether the cells are known up front or decided as the batch
// goes: matrix, suite and audit plan a fixed list (Plan.Cells); a
// strategy that reads the rows so far can yield the next cell from what
// came before (a random schedule after a clean run, a shrink candidate
// after a finding), and the engine runs it, on the cluster its Clusters
// gives, like any other.
type Strategy interface {
	// Next is the cell to run after the rows so far; false ends the
	// batch.
	Next(rows []report.Row) (Cell, bool)
	// Left lists the cells still to come when they are known without the
	// rows (a fixed list), nil when the strategy decides them as it goes:
	// the engine then knows the batch's size for its progress lines, can
	// announce the next cell to its Clusters (a cluster started ahead),
	// and lists what an interruption kept from starting.
	Left() []Cell
}

// cellList is the Strategy of a fixed list of cells, in order.
type cellList struct {
	cells []Cell
	next  int
}

func (l *cellList) Next([]report.Row) (Cell, bool) {
	if l.next >= len(l.cells) {
		return Cell{}, false
	}
	l.next++
	return l.cells[l.next-1], true
}

func (l *cellList) Left() []Cell { return l.cells[l.next:] }

// cellSource is the engine's side of a Strategy: each cell's scenario a
// copy of its own (Run fills the seed in), and with a fixed list the
// next cell taken early, so that its scenario can be announced to the
// batch's Clusters before the cell before it runs (a cluster started
// ahead is matched to its run by that very scenario).
type cellSource struct {
	st     Strategy
	peeked *Cell
}

// next is the cell to run and the one after it when the strategy knows
// it already (nil otherwise).
func (src *cellSource) next(rows []report.Row) (c Cell, after *Cell, ok bool) {
	if src.peeked != nil {
		c, ok, src.peeked = *src.peeked, true, nil
	} else if c, ok = src.st.Next(rows); ok {
		c = ownScenario(c)
	}
	if ok && src.st.Left() != nil {
		if n, more := src.st.Next(rows); more {
			n = ownScenario(n)
			src.peeked = &n
		}
	}
	return c, src.peeked, ok
}

// left is every cell still to come when known: the one taken early too.
func (src *cellSource) left() []Cell {
	left := src.st.Left()
	if src.peeked != nil {
		left = append([]Cell{*src.peeked}, left...)
	}
	return left
}

func ownScenario(c Cell) Cell {
	if c.Scenario != nil {
		s := *c.Scenario
		c.Scenario = &s
	}
	return c
}
