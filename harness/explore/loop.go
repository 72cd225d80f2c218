package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// explorer is an exploration as a plan of the batch engine
// (harness.RunBatch): its Strategy yields run i's cell (random: the
// seeded scenario; guided: Guide's schedule from the coverage so far),
// its Play runs a cell on the exploration's Runner and keeps what the run
// gave (its record, its coverage, a finding with its shrink, explore.json
// and explore.md), and Next reads what was kept to decide the next run or
// the end. The engine owns the loop, the announcing of each next run to
// the clusters (Config.Ahead, through announcer) and the interruption, as
// it does for a matrix, a suite or an audit; a finding's shrink runs its
// candidates through the engine's one step too (runOracle on
// harness.Plan.RunCell), so that every run of an exploration is
// announced and placed by one rule.
//
// Play keeps what a run gave, rather than Next on reading its row,
// because the engine asks for no next cell once interrupted, and the
// last run of an interrupted exploration must be recorded (and its
// finding kept) all the same. Play runs the Runner rather than the
// engine's own Run and Judge because a run is judged as exploration
// judges it (judged: classes, idle time, reuse), and because the unit
// tests give a simulated Runner.
//
// The engine's rows are not written (the plan has no Batch): an
// exploration's record is explore.json, which says more of each run (its
// seed, classes, idle time, reuse, coverage) than a batch row can.
type explorer struct {
	cfg       Config
	run       runner
	plan      *harness.Plan
	dir, runs string
	sum       *Summary
	begin     time.Time
	// i is the index of the run under way, started once the first cell
	// was yielded; next the scenario of the run after it (random: drawn
	// ahead and announced; nil: the last, or guided).
	i       int
	started bool
	next    *scenario.Scenario
	choices []Choice
	// live is run i's chooser under StrategyLive (nil otherwise): what
	// it played becomes the run's scripted scenario once it ran.
	live *liveChooser
	// The exploration so far: shrink time, the last workload's end (the
	// idle gap's start), runs failed in a row, coverage.
	shrinking    time.Duration
	lastEnd      time.Time
	failedInARow int
	total        states.Coverage
	history      []*states.Coverage
	// err is a store that could not be written: it ends the exploration.
	err error
}

// Next is the cell of the next run (Strategy), or false when the
// exploration is done: its runs or time up, stopped, or its store
// unwritable.
func (e *explorer) Next([]report.Row) (harness.Cell, bool) {
	if e.err != nil || e.sum.Stopped != "" {
		return harness.Cell{}, false
	}
	i := e.cfg.Shard.Next(0)
	if e.started {
		i = e.cfg.Shard.Next(e.i + 1)
	}
	cfg := e.cfg
	if cfg.Runs > 0 && i >= cfg.Runs || cfg.For > 0 && cfg.Now().Sub(e.begin) >= cfg.For ||
		cfg.StopAfter > 0 && len(e.sum.Findings) >= cfg.StopAfter {
		return harness.Cell{}, false
	}
	s := e.next
	if !e.started {
		s = withSeed(cfg.Scenario, runSeed(cfg.Seed, i))
	}
	e.i, e.started = i, true
	if j := cfg.Shard.Next(i + 1); cfg.Runs <= 0 || j < cfg.Runs {
		e.next = withSeed(cfg.Scenario, runSeed(cfg.Seed, j))
	} else {
		e.next = nil
	}
	e.choices, e.live = nil, nil
	switch cfg.Strategy {
	case StrategyGuided:
		g, err := e.guide(i)
		if err != nil {
			e.err = err
			return harness.Cell{}, false
		}
		s, e.choices = g.Scenario, g.Choices
	case StrategyLive:
		ch, err := newLiveChooser(cfg.Scenario, runSeed(cfg.Seed, i), e.history, cfg.Now)
		if err == nil {
			s, err = liveScenario(cfg.Scenario, runSeed(cfg.Seed, i), ch)
		}
		if err != nil {
			e.err = err
			return harness.Cell{}, false
		}
		e.live = ch
	}
	return e.cell(i, s), true
}

// played is run i's scripted scenario once its live chooser played it
// (StrategyLive), written to schedules/run-<i>.yaml and over the run
// folder's scenario.yaml (which held the schedule as empty, the chooser
// being code), so that the run is redone, shrunk and reproduced from
// what it played; s unchanged under the other strategies.
func (e *explorer) played(i int, s *scenario.Scenario, runDir string) (*scenario.Scenario, error) {
	if e.live == nil {
		return s, nil
	}
	d, choices, err := e.live.played(e.cfg.Scenario, s.Seed)
	e.choices = choices
	if err != nil {
		return s, err
	}
	if err := e.writeSchedule(i, d); err != nil {
		return d, err
	}
	if runDir != "" {
		if _, err := os.Stat(runDir); err == nil {
			return d, writeScenario(filepath.Join(runDir, "scenario.yaml"), d)
		}
	}
	return d, nil
}

// guide is run i's guided schedule, written to schedules/run-<i>.yaml.
func (e *explorer) guide(i int) (Guided, error) {
	g, err := Guide(e.cfg.Scenario, runSeed(e.cfg.Seed, i), e.history)
	if err == nil {
		err = e.writeSchedule(i, g.Scenario)
	}
	return g, err
}

// writeSchedule writes run i's scripted scenario to schedules/run-<i>.yaml
// (a guided run's plan, or what a live run played), so that the run can
// be redone alone.
func (e *explorer) writeSchedule(i int, s *scenario.Scenario) error {
	dir := filepath.Join(e.dir, "schedules")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeScenario(filepath.Join(dir, fmt.Sprintf("run-%03d.yaml", i)), s)
}

func (e *explorer) cell(i int, s *scenario.Scenario) harness.Cell {
	return harness.Cell{Row: report.Row{ID: fmt.Sprintf("run-%03d", i), Scenario: s.Name, Kafka: s.Cluster.Kafka}, Scenario: s, Store: e.runs}
}

// Left is nil: an exploration decides its runs as it goes.
func (e *explorer) Left() []harness.Cell { return nil }

// After is the run after the one Next yielded when it is known before
// that one runs (harness.foresight): a random run's, never a guided
// one's, whose schedule waits for this run's coverage (its cluster may
// still be kept; none is started ahead).
func (e *explorer) After() *harness.Cell {
	if adaptive(e.cfg.Strategy) || e.next == nil {
		return nil
	}
	c := e.cell(e.cfg.Shard.Next(e.i+1), e.next)
	return &c
}

// Play runs the cell of run e.i on the Runner and keeps what it gave.
func (e *explorer) Play(ctx context.Context, c harness.Cell) report.Row {
	s, cfg := c.Scenario, e.cfg
	start := cfg.Now()
	out, err := e.run(ctx, s, c.Store)
	if s, e.err = e.played(e.i, s, out.Dir); e.err != nil {
		return judgedRow(c, out, err, cfg.Now().Sub(start).Seconds())
	}
	rec := RunRecord{Index: e.i, Seed: s.Seed, Seconds: cfg.Now().Sub(start).Seconds(), Classes: out.Classes, ScheduleErr: out.ScheduleErr,
		ReusedFrom: out.ReusedFrom, ReuseRefused: out.ReuseRefused, Guided: e.choices}
	row := judgedRow(c, out, err, rec.Seconds)
	if err == nil && out.Dir != "" {
		if e.err = e.cover(&rec, out.Dir); e.err != nil {
			return row
		}
	}
	if !e.lastEnd.IsZero() && !out.WorkloadStarted.IsZero() {
		rec.IdleSeconds = out.WorkloadStarted.Sub(e.lastEnd).Seconds()
	}
	e.lastEnd = out.WorkloadEnded
	e.keep(ctx, &rec, s, out, err)
	if e.failedInARow >= maxFailedInARow {
		what := "failed before their check"
		if errors.As(err, new(unexercisedError)) {
			what = "were not judged (the last checked, Kafka having acknowledged nothing of it)"
		}
		e.sum.Stopped = fmt.Sprintf("stopped: %d runs in a row %s; the last: %s", e.failedInARow, what, rec.Err)
	}
	e.record(rec)
	return row
}

// cover adds the run's coverage to the exploration's (coverage.json).
func (e *explorer) cover(rec *RunRecord, runDir string) error {
	cov, cerr := runCoverage(runDir)
	if cerr != nil {
		rec.CoverageErr = cerr.Error()
	}
	rec.NewTransitions = len(e.total.Add(cov))
	e.history = append(e.history, cov)
	e.sum.Transitions = e.total.Distinct()
	e.sum.Unsampled = new(e.total.Unsampled())
	return e.total.Write(filepath.Join(e.dir, states.CoverageFile))
}

// keep judges the run into rec: a failed run counted toward the stop, a
// finding kept and shrunk, a clean run's folder removed unless kept.
func (e *explorer) keep(ctx context.Context, rec *RunRecord, s *scenario.Scenario, out judged, err error) {
	switch {
	case err != nil:
		rec.Verdict, rec.Err = checker.Unknown.String(), err.Error()
		removeUnlessKept(out.Dir, e.cfg.Keep)
		if ctx.Err() == nil {
			e.failedInARow++
		}
	case len(out.Classes) > 0:
		e.failedInARow = 0
		rec.Verdict = out.Verdict.String()
		t0 := e.cfg.Now()
		f, ferr := keepFinding(ctx, e.cfg, e.dir, e.i, s, out, e.oracle)
		e.shrinking += e.cfg.Now().Sub(t0)
		e.lastEnd = time.Time{} // the shrink's runs came between: no idle gap to measure
		rec.Finding = f.ID
		e.sum.Findings = append(e.sum.Findings, f)
		if ferr != nil && ctx.Err() != nil {
			e.sum.Interrupted = true
		}
	default:
		e.failedInARow = 0
		rec.Verdict = out.Verdict.String()
		removeUnlessKept(out.Dir, e.cfg.Keep)
	}
}

// record adds rec to the summary and writes it (explore.json and
// explore.md after every run), then tells OnRun.
func (e *explorer) record(rec RunRecord) {
	sum := e.sum
	sum.RunRecords = append(sum.RunRecords, rec)
	sum.Seconds = e.cfg.Now().Sub(e.begin).Seconds()
	sum.ShrinkSeconds = e.shrinking.Seconds()
	if explored := sum.Seconds - sum.ShrinkSeconds; explored > 0 {
		sum.RunsPerHour = float64(len(sum.RunRecords)) / explored * 3600
	}
	sum.IdleSeconds = meanIdle(sum.RunRecords)
	if e.err = sum.Write(e.dir); e.err != nil {
		return
	}
	if e.cfg.OnRun != nil {
		e.cfg.OnRun(Progress{Done: len(sum.RunRecords), Findings: len(sum.Findings), PerHour: sum.RunsPerHour, Last: rec})
	}
}

// oracle is the shrink's Oracle for a finding: its candidates and reruns
// are cells of the exploration's engine, run on the Runner alone (a
// shrink's run is judged, not kept: runOracle keeps its folders).
func (e *explorer) oracle(store, class string) *runOracle {
	o := &runOracle{store: store, class: class}
	o.plan = &harness.Plan{Announcer: e.plan.Announcer, Play: func(ctx context.Context, c harness.Cell) report.Row {
		o.out, o.err = e.run(ctx, c.Scenario, c.Store)
		return judgedRow(c, o.out, o.err, 0)
	}}
	return o
}

// judgedRow is the engine's row of a run as exploration judged it: its
// folder, its verdict (classes when a finding) and why it failed.
func judgedRow(c harness.Cell, out judged, err error, seconds float64) report.Row {
	row := c.Row
	row.RunDir, row.Seconds, row.Checks = out.Dir, seconds, out.Classes
	row.Status = out.Verdict.String()
	if err != nil {
		row.Status, row.Reason = checker.Unknown.String(), err.Error()
	}
	return row
}

// announcer is Config.Ahead and Config.Close as the engine's Announcer
// (either may be nil: nothing to tell).
type announcer struct {
	ahead func(next *scenario.Scenario, store string)
	close func()
}

func (a announcer) Announce(next *scenario.Scenario, store string) {
	if a.ahead != nil {
		a.ahead(next, store)
	}
}

func (a announcer) Close() {
	if a.close != nil {
		a.close()
	}
}
