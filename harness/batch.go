package harness

import (
	"context"
	"strings"
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

// Plan is a batch ready to run.
type Plan struct {
	// Cells are the cells to run, in order, unless Strategy yields them.
	Cells []Cell
	// Strategy, when set, yields the cells instead of Cells.
	Strategy Strategy
	// Clusters decides which cluster each cell runs on (nil: a fresh one
	// each, what matrix, audit and by default a suite want: a cell's
	// figures must not depend on what the cell before it left; a suite
	// run with SuiteOptions.ReuseClusters lets cells share one). The engine announces each
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

	// Dir, when set, is the batch's folder, made by the plan's owner
	// before the batch starts (an exploration writes its summary there
	// from its first run on); "" makes it from What, Name and Prefix.
	Dir string
	// Play, when set, runs and judges a cell in the place of Run and Judge
	// (an exploration's Runner: a run on its Pipeline, or a simulated one
	// in tests) and gives its row; the engine still announces the cell,
	// keeps the rows and stops on interruption. Nil: Run, then Judge.
	Play func(ctx context.Context, c Cell) report.Row
	// Announcer, when set, is told the cells to come in the place of
	// Clusters (a Play that runs on clusters of its own: the exploration's
	// Pipeline, or a test's recorder).
	Announcer Announcer
}

// Announcer is what the engine tells, before each cell, which cell
// follows it (Announce), and, when the batch ends, that nothing does
// (Announce(nil, "")) before it closes it (Close). *Clusters is the one
// that decides clusters from it; an exploration's Pipeline hands on to
// one.
type Announcer interface {
	Announce(next *scenario.Scenario, store string)
	Close()
}

// announcer is the plan's Announcer, its Clusters by default (nil-safe:
// a plan of fresh clusters announces to no one).
func (p *Plan) announcer() Announcer {
	if p.Announcer != nil {
		return p.Announcer
	}
	return p.Clusters
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

// RunBatch runs every cell of plan through its one step (RunCell: Run,
// each on the cluster plan.Clusters gives, a fresh one by default, or
// the plan's Play), and writes the batch's pages after each row (a plan
// without Batch has none: an exploration keeps its own record). When
// ctx ends (a signal through harness/shutdown), the cell under way is
// interrupted (healed, torn down, checked: see Run), its row written,
// and no further cell starts; at the end the plan's Clusters (or
// Announcer) is told that nothing follows and closed. An error is a store that cannot be made or written; the result
// is never nil then unless the folder could not be made.
func RunBatch(ctx context.Context, plan *Plan, opts BatchOptions) (*BatchResult, error) {
	dir, err := plan.Dir, error(nil)
	if dir == "" {
		if dir, err = makeStoreDir(opts.Store, plan.What, plan.Name, plan.Prefix); err != nil {
			return nil, err
		}
	}
	res := &BatchResult{Dir: dir, AllowEmpty: opts.AllowEmpty}
	write := func() error { return nil } // a plan without pages (an exploration's summary is its own)
	if plan.Batch != nil {
		res.Page = plan.Batch(nil).Page
		write = func() error { return plan.Batch(res.Rows).Write(dir) }
	}
	ann := plan.announcer()
	defer func() {
		ann.Announce(nil, "") // nothing follows: what was kept or started ahead goes
		ann.Close()
	}()
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
			row = plan.RunCell(ctx, c, opts.Options, Announced(after))
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

// Follows is what the engine announces before a cell runs: the cell
// after it, when the cell is the batch's own.
type Follows struct {
	// Own says the cell is the batch's own: it may run on a cluster kept
	// or started ahead for it, and keep its own for Next. A cell that is
	// not (a shrink's final rerun, which measures a repro's rate as
	// `kchaos run` runs it) is not announced: it runs on a fresh cluster,
	// what was kept or started ahead torn down first (Clusters).
	Own bool
	// Next is the cell after it, when known (its cluster is started
	// ahead); nil when it is not known yet (a guided run, a shrink's
	// candidate: the cluster may still be kept, nothing starts ahead).
	Next *Cell
}

// Announced is the Follows of one of the batch's own cells followed by
// next (nil: not known).
func Announced(next *Cell) Follows { return Follows{Own: true, Next: next} }

// Unannounced is the Follows of a cell that is not the batch's own.
var Unannounced = Follows{}

// RunCell runs c, a cell of p, on the cluster p's Clusters gives after
// announcing what follows it, and judges its row. It is the engine's one
// step: its loop runs each cell so, and a strategy that must run cells
// between the loop's (a finding's shrink candidates and reruns) runs them
// here too, so that each run of a batch is announced, placed and judged
// by one rule. opts are the batch's run options (p's Overridden and
// Clusters go with them).
func (p *Plan) RunCell(ctx context.Context, c Cell, opts Options, f Follows) report.Row {
	if f.Own {
		if n := f.Next; n != nil && n.Scenario != nil {
			store := n.Store
			if store == "" {
				store = opts.Store
			}
			p.announcer().Announce(n.Scenario, store)
		} else {
			p.announcer().Announce(nil, c.Store) // the next, when it comes, goes where c goes
		}
	}
	if p.Play != nil {
		return p.Play(ctx, c)
	}
	opts.Overridden, opts.Clusters = p.Overridden, p.Clusters
	if c.Store != "" {
		opts.Store = c.Store
	}
	return runCell(ctx, p, c, opts)
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

// unjudgedWhy is why no expectation can be held against a run: its
// schedule did not play out, or its checks held vacuously (both, when
// both: a workload Kafka acknowledged nothing of leaves an until on the
// ISR waiting too, and the cause is the second); "" when neither.
func unjudgedWhy(out *RunResult) string {
	var why []string
	for _, w := range []string{scheduleProblem(out), unexercised(out)} {
		if w != "" {
			why = append(why, w)
		}
	}
	return strings.Join(why, "; ")
}

// unexercised says why a run's checks held vacuously (the checker's
// Result.Unexercised: Kafka acknowledged nothing of what the workload
// asked), "" when they did not: no expectation can be held against such a
// run, whatever its metrics read (lost-write == 0 of nothing acked).
func unexercised(out *RunResult) string {
	if out == nil || out.Result == nil || len(out.Result.Unexercised) == 0 {
		return ""
	}
	return "the run exercised nothing its checks judge: " + strings.Join(out.Result.Unexercised, "; ")
}
