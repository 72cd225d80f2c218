package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/owned"
	"github.com/kchaos/kchaos/report"
)

// judged is one run as exploration judges it.
type judged struct {
	// Dir is the run folder (harness.Run's).
	Dir     string
	Verdict checker.Verdict
	// Classes are Classes of the run: empty unless it is a finding.
	Classes []string
	// Reasons are the checker's words for the verdict.
	Reasons []string
	// ScheduleErr says the schedule did not play out as written (a fault
	// that did not take effect): recorded, and the run is still judged.
	ScheduleErr string
	// WorkloadStarted and WorkloadEnded are when its workload ran (zero
	// when unknown): the gap from one run's end to the next's start is
	// the exploration's idle time.
	WorkloadStarted, WorkloadEnded time.Time
	// ReusedFrom is the run folder (its name) of the run whose cluster
	// this one ran on ("": a cluster of its own); ReuseRefused why the run
	// did not leave its cluster to the next (Pipeline with reuse).
	ReusedFrom, ReuseRefused string
}

// runner runs s once, its run folder under store, and judges it. The
// real one is HarnessRunner; tests give a simulated one.
type runner func(ctx context.Context, s *scenario.Scenario, store string) (judged, error)

// harnessRunner is harness.Run on a fresh cluster, without the report's
// screenshot (a headless browser per run halves the runs per hour), its
// metrics read back as a suite reads them.
func harnessRunner(opts harness.Options) runner {
	return func(ctx context.Context, s *scenario.Scenario, store string) (judged, error) {
		o := opts
		o.Store, o.NoScreenshot = store, true
		out, err := harness.Run(ctx, s, o)
		return judge(s, out, err)
	}
}

// judge is a harness run as exploration judges it.
func judge(s *scenario.Scenario, out *harness.RunResult, err error) (judged, error) {
	var res judged
	if out != nil {
		res.Dir = out.Dir
		res.WorkloadStarted, res.WorkloadEnded = out.WorkloadStarted, out.WorkloadEnded
		if out.Cluster.Reused() {
			res.ReusedFrom = out.Cluster.ReusedFrom
		}
		res.ReuseRefused = out.ReuseRefused
	}
	if err != nil {
		return res, err
	}
	if out.Interrupted != "" {
		return res, errors.New(out.Interrupted)
	}
	m, merr := out.Metrics()
	if merr != nil && len(m) == 0 {
		return res, merr
	}
	res.Verdict, res.Reasons = out.Result.Valid, out.Result.Reasons
	res.Classes = classes(out.Result, m, s)
	if u := out.Result.Unexercised; len(u) > 0 && len(res.Classes) == 0 {
		// Its checks held vacuously: it found nothing because Kafka
		// acknowledged nothing of it, so it is no draw that found
		// nothing (a rate, a shrink's rerun) and, like a run that failed
		// before its check, counts toward the stop after several in a
		// row. (What it did find, an aborted read of a refused send,
		// stands.)
		return res, unexercisedError(strings.Join(u, "; "))
	}
	if out.NemesisErr != nil {
		res.ScheduleErr = out.NemesisErr.Error()
	}
	return res, nil
}

// unexercisedError is judge's answer for a run whose checks held
// vacuously: why (the checker's Result.Unexercised).
type unexercisedError string

func (e unexercisedError) Error() string {
	return "checked, but Kafka acknowledged nothing of the run, so its checks held vacuously: " + string(e)
}

// Config is one exploration.
type Config struct {
	// Scenario is what every run runs, with its random schedule
	// (Explorable's).
	Scenario *scenario.Scenario
	// Runs bounds the runs (this shard's share of runs 0..Runs-1), For
	// the wall time; one of them is set.
	Runs int
	For  time.Duration
	// Seed is the base seed: run i draws with RunSeed(Seed, i) (0: one
	// is picked and recorded).
	Seed  int64
	Shard Shard
	// Store is the store folder; the exploration's is
	// store/explore-<name>/<timestamp>/.
	Store string
	// Keep keeps every run folder (default: only findings').
	Keep bool
	// ShrinkFor is each finding's shrink budget; Tries its K. NoShrink
	// keeps findings as found (the repro is the realised schedule).
	ShrinkFor time.Duration
	Tries     int
	NoShrink  bool
	// StopAfter ends the exploration once it holds this many findings
	// (0: never; its runs or time decide). A user who wants one
	// reproducible loss, and a test that asks for one, need not pay for
	// the runs and shrinks after it.
	StopAfter int
	// Ahead, when set, is told before each run which run follows it (its
	// scenario and store; nil at the end, or when it is not known yet:
	// before a guided run and before each shrink candidate), so that its
	// cluster can start ahead or be kept (Pipeline.Ahead). A shrink's
	// final reruns are not announced: they run on fresh clusters. The
	// batch engine tells it (it is the exploration plan's Announcer), by
	// the rule it tells every plan's Clusters.
	Ahead func(next *scenario.Scenario, store string)
	// Close, when set, is called when the exploration ends: the cluster
	// started ahead or kept for a run that will not come goes
	// (Pipeline.Close). Not Ahead(nil), which also comes before the last
	// run, whose cluster is already started or kept.
	Close func()
	// Now is the clock (tests); OnRun is told after each run, Log each
	// shrink candidate.
	Now   func() time.Time
	OnRun func(Progress)
	Log   func(string)
	// Strategy is StrategyRandom ("": the same), StrategyGuided (each
	// run's schedule chosen by Guide from the coverage of the runs before
	// it, written to schedules/run-<i>.yaml so that any run can be redone
	// alone) or StrategyLive (chosen as the run goes, and what it played
	// written there once it ran). A guided run's schedule is known only once the run before
	// it ended, so no cluster is started ahead for it: runs share one
	// cluster (the default) or each starts its own.
	Strategy string
}

// DefaultShrinkFor is a finding's shrink budget unless --shrink-for says.
const DefaultShrinkFor = 30 * time.Minute

// maxFailedInARow stops an exploration whose runs keep failing before
// their check (no image, no engine, a cluster that cannot start): after
// this many in a row it ends, Summary.Stopped naming the last error,
// rather than spin through failing runs until --for is up.
const maxFailedInARow = 3

// Progress is the exploration so far.
type Progress struct {
	Done, Findings int
	// PerHour is runs per hour of exploring (shrinking not counted).
	PerHour float64
	Last    RunRecord
}

// explore runs cfg.Scenario under seed after seed until its runs or its
// time are done (or ctx ends), keeps each finding with its repro, shrunk,
// under findings/<id>/, and writes explore.json and explore.md after
// every run. Run folders of runs that found nothing are deleted unless
// cfg.Keep. The summary is returned with the exploration's folder; an
// error is a store that cannot be written or a cancelled shrink.
//
// The runs go through the batch engine (harness.RunBatch) as a plan of
// their own (explorer, loop.go), so that an exploration is announced,
// interrupted and ended by the rules of every batch: Explore only sets
// the plan up and, once the engine is done, ends the summary.
func explore(ctx context.Context, cfg Config, run runner) (*Summary, string, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tries <= 0 {
		cfg.Tries = DefaultTries
	}
	if cfg.ShrinkFor <= 0 {
		cfg.ShrinkFor = DefaultShrinkFor
	}
	if cfg.Seed == 0 {
		// Picked and recorded, as a run's seed is: explore.json names it,
		// and --seed with it redraws every run.
		cfg.Seed = cfg.Now().UnixNano() & (1<<53 - 1)
	}
	if cfg.Runs <= 0 && cfg.For <= 0 {
		return nil, "", &scenario.BadInputError{Err: errors.New("give --runs N or --for DURATION")}
	}
	dir, err := harness.MakeStoreDir(cfg.Store, "scenario name", cfg.Scenario.Name, "explore-")
	if err != nil {
		return nil, "", err
	}
	e := &explorer{cfg: cfg, run: run, dir: dir, runs: filepath.Join(dir, "runs"), begin: cfg.Now()}
	e.sum = &Summary{Scenario: cfg.Scenario.Name, Kafka: cfg.Scenario.Cluster.Kafka, BaseSeed: cfg.Seed,
		Shard: cfg.Shard.String(), Runs: cfg.Runs, Started: e.begin.UTC(), Settings: cfg.Scenario.Settings(), Strategy: StrategyRandom}
	if r := cfg.Scenario.Nemesis.Random; r != nil {
		e.sum.Faults = r.Faults
	}
	if adaptive(cfg.Strategy) {
		e.sum.Strategy = cfg.Strategy
	}
	e.sum.StopAfter = cfg.StopAfter
	e.plan = &harness.Plan{Strategy: e, Dir: dir, Play: e.Play, Announcer: announcer{cfg.Ahead, cfg.Close}}
	if _, err := harness.RunBatch(ctx, e.plan, harness.BatchOptions{}); err != nil {
		return e.sum, dir, err
	}
	sum := e.sum
	if e.err != nil {
		return sum, dir, e.err
	}
	sum.Interrupted = sum.Interrupted || ctx.Err() != nil
	if !cfg.Keep {
		_ = os.RemoveAll(e.runs)
		_ = os.RemoveAll(filepath.Join(dir, "shrink"))
	}
	return sum, dir, sum.Write(dir)
}

func removeUnlessKept(dir string, keep bool) {
	if dir != "" && !keep {
		_ = os.RemoveAll(dir)
	}
}

// keepFinding moves the run folder under findings/<id>/original-run/,
// writes original.yaml (its realised schedule as a scenario), shrinks it
// and writes repro.yaml, the last reproducing rerun (repro-run/) and
// finding.md. Problems are the finding's Err: the run folder is kept
// whatever happens.
func keepFinding(ctx context.Context, cfg Config, dir string, i int, s *scenario.Scenario, out judged, oracle func(store, class string) *runOracle) (FindingRecord, error) {
	class := primary(out.Classes)
	f := FindingRecord{ID: fmt.Sprintf("%03d-%s", i, slug(class)), Class: class, Classes: out.Classes,
		Run: i, Seed: s.Seed, Reasons: out.Reasons, Rate: "not shrunk", ReusedFrom: out.ReusedFrom}
	fdir := filepath.Join(dir, "findings", f.ID)
	f.Dir = filepath.Join("findings", f.ID)
	fail := func(err error) (FindingRecord, error) {
		f.Err = err.Error()
		_ = writeFinding(fdir, s, f, nil, nil)
		return f, err
	}
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return fail(err)
	}
	orig := filepath.Join(fdir, "original-run")
	if err := os.Rename(out.Dir, orig); err != nil {
		return fail(err)
	}
	steps, err := readRealised(filepath.Join(orig, checker.HistoryFile))
	if err != nil {
		return fail(fmt.Errorf("the realised schedule: %w", err))
	}
	original, err := repro(s, steps, fmt.Sprintf("kchaos explore finding %s: run %d (seed %d) of %s, its schedule as it fired", f.ID, i, s.Seed, s.Name))
	if err != nil {
		return fail(fmt.Errorf("the realised schedule as a scenario: %w", err))
	}
	original.Expect = fmt.Sprintf("Showed %s (kchaos explore finding %s).", strings.Join(out.Classes, ", "), f.ID)
	if err := writeScenario(filepath.Join(fdir, "original.yaml"), original); err != nil {
		return fail(err)
	}
	f.Steps = countFaults(original.Nemesis.Steps)
	if cfg.NoShrink {
		f.ReproSteps = f.Steps
		return f, writeFinding(fdir, s, f, original, nil)
	}
	o := oracle(filepath.Join(dir, "shrink", f.ID), class)
	res, err := shrink(ctx, o, original, shrinkOptions{Class: class, Tries: cfg.Tries, Budget: cfg.ShrinkFor, Now: cfg.Now, Log: cfg.Log})
	if err != nil {
		o.cleanup(cfg.Keep, "", 0)
		return fail(fmt.Errorf("shrink: %w", err))
	}
	res.Scenario.Description = fmt.Sprintf("kchaos explore finding %s, shrunk: reproduced %s (%s) after %d shrink runs", f.ID, res.rate(), class, res.Runs)
	repro, err := repro(res.Scenario, res.Scenario.Nemesis.Steps, res.Scenario.Description)
	if err != nil {
		o.cleanup(cfg.Keep, "", 0)
		return fail(fmt.Errorf("the shrunk repro: %w", err))
	}
	repro.Expect = fmt.Sprintf("Reproduces %s, %s reruns when it was shrunk (kchaos explore finding %s).", class, res.rate(), f.ID)
	if err := writeScenario(filepath.Join(fdir, "repro.yaml"), repro); err != nil {
		return fail(err)
	}
	f.ReproSteps, f.Rate, f.ShrinkRuns = countFaults(repro.Nemesis.Steps), res.rate(), res.Runs
	f.ShrinkMinutes, f.OutOfBudget, f.ShrinkReused = res.Elapsed.Minutes(), res.OutOfBudget, o.reused
	o.cleanup(cfg.Keep, filepath.Join(fdir, "repro-run"), res.Confirmations)
	return f, writeFinding(fdir, s, f, repro, res)
}

// runOracle is the shrinker's Oracle on the exploration's engine: each
// candidate is a cell of a plan that runs it on the exploration's Runner
// (explorer.oracle), its run folder under store; the last one that showed
// the class is kept as the repro's run (its report), the rest deleted
// unless kept.
//
// Each candidate is announced as one of the batch's own with nothing
// known after it (harness.Announced(nil): the next run is of the same
// cluster, not known yet), as an exploration announces its own runs: the
// candidate then runs on the cluster the run before left, and leaves its
// own to the next, whenever harness.Clusters and harness.reuse allow it,
// which is their one decision (no fault that leaves state ran, the
// cluster is healthy, the settings are the same), not a rule of the
// shrink's. A final rerun (confirm) is not announced
// (harness.Unannounced), so it runs on a fresh cluster, the kept one torn
// down first: the rate is the repro's as `kchaos run` runs it, and a
// candidate that only reproduced on what an earlier run left shows there
// as a low rate.
type runOracle struct {
	plan  *harness.Plan
	store string
	class string
	// out and err are what the plan's Play judged of the last cell.
	out       judged
	err       error
	dirs      []string
	lastRepro string
	// reused counts the runs that ran on a kept cluster.
	reused int
}

func (o *runOracle) Run(ctx context.Context, s *scenario.Scenario, confirm bool) ([]string, error) {
	follows := harness.Announced(nil)
	if confirm {
		follows = harness.Unannounced
	}
	o.plan.RunCell(ctx, harness.Cell{Row: report.Row{ID: "shrink", Scenario: s.Name}, Scenario: s, Store: o.store}, harness.Options{}, follows)
	out, err := o.out, o.err
	if out.Dir != "" {
		o.dirs = append(o.dirs, out.Dir)
	}
	if out.ReusedFrom != "" {
		o.reused++
	}
	if err == nil && shows(out.Classes, o.class) {
		o.lastRepro = out.Dir
	}
	return out.Classes, err
}

// cleanup moves the last reproducing run among the final reruns (the
// last confirmations runs) to keepAs, and removes the store unless keep.
func (o *runOracle) cleanup(keep bool, keepAs string, confirmations int) {
	final := o.dirs[max(len(o.dirs)-confirmations, 0):]
	if keepAs != "" && o.lastRepro != "" && slices.Contains(final, o.lastRepro) {
		_ = os.Rename(o.lastRepro, keepAs)
	}
	if !keep {
		_ = os.RemoveAll(o.store)
	}
}

func writeScenario(path string, s *scenario.Scenario) error {
	b, err := s.Marshal()
	if err != nil {
		return err
	}
	return owned.Write(path, b)
}
