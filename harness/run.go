// Package harness runs a scenario end to end: cluster → topic → workload,
// observer and nemesis schedule → heal → final read → check → report, and
// writes everything into a run folder of the store.
package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kchaos/kchaos/brokerlogs"
	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/harness/shutdown"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/report"
	"github.com/kchaos/kchaos/workloads"
	// Every workload kind the seam runs (the consumer and share groups,
	// the transactional producers), registered before workloads.New
	// makes one.
	_ "github.com/kchaos/kchaos/workloads/kinds"
)

// Options tune a run.
type Options struct {
	// Store is the store folder (default ./store).
	Store string
	// Log receives log lines; nil discards them.
	Log *slog.Logger
	// Progress receives one event per phase change, workload stats every
	// ProgressEvery (default 2 s) and each nemesis step; nil discards them.
	Progress      progress.Sink
	ProgressEvery time.Duration
	// NoScreenshot skips the headless-Chromium screenshot of report.html.
	NoScreenshot bool
	// Overridden lists user config keys kchaos replaced (for the report).
	Overridden []string
	// Inspect, when set, is called after the final read with the run's
	// cluster still up (before the teardown): an integration test asks
	// Kafka itself what the history says it did (the voter set a
	// reconfiguration left, DescribeQuorum). Its error fails the run.
	Inspect func(ctx context.Context, c cluster.Cluster) error
	// Clusters, when set, decides which cluster the run runs on (one the
	// run before kept, one started ahead, or a fresh one) and what the run
	// does for the next (see Clusters: kchaos explore); nil starts a fresh
	// cluster for the run and nothing ahead.
	Clusters *Clusters
}

// RunResult is what a run produced (its folder, the checked history, what
// went wrong on the way); a suite judges it against the scenario's
// Expectation, a matrix shows its verdict.
type RunResult struct {
	Dir    string          // the run folder
	Result *checker.Result // the checked history
	// NemesisErr is set when the schedule did not play out as written (a
	// step failed or an `until` timed out): the history is still checked,
	// but the story the scenario tells may not have happened.
	NemesisErr error
	// FinalRead reports each partition's final read.
	FinalRead workloads.FinalReadResult
	// ReportErr is set when report.html/md could not be written.
	ReportErr error
	// Interrupted is set when a signal (or the caller's context) stopped
	// the run: "interrupted at workload by SIGINT". The run still healed,
	// tore down and checked what was recorded; the verdict is unknown
	// unless the check found anomalies.
	Interrupted string
	// WorkloadStarted and WorkloadEnded are when the workload started and
	// stopped (wall clock; zero when it did not run): the time between
	// one run's end and the next run's start is what a batch of runs
	// spends idle (kchaos explore measures it).
	WorkloadStarted, WorkloadEnded time.Time
	// Cluster is the cluster the run ran on (run.json's): started for it,
	// or reused after another run (Options.Clusters).
	Cluster *histories.ClusterUse
	// ReuseRefused says why the run did not leave its cluster for the next
	// run (Options.Clusters; "" when it did, or was not asked to).
	ReuseRefused string

	// pass is the check's pass over the history with the report's and the
	// metrics' sinks: the report is written and the batch cell measured
	// from it, without reading the history again (nil: no history).
	pass *runPass
}

// tail is how long the workload keeps running after the nemesis schedule
// finished (and its final heal), so the history shows the recovery.
const tail = 3 * time.Second

// Run runs s and returns its outcome. An error means the run could not be
// made (no cluster, no topic, a broken history): the CLI exits 255. The
// run folder is kept whatever happens, with whatever history was written.
//
// When ctx ends early (a signal through a shutdown.Shutdown, as every
// command that starts a cluster uses), Run still heals, reads, tears down,
// checks what was recorded and writes the report; results.json then says
// "interrupted at <phase>" and Run returns no error for the interruption.
func Run(ctx context.Context, s *scenario.Scenario, opts Options) (*RunResult, error) {
	if needs := s.NeedsText(); needs != "" {
		// A finding kchaos cannot drive yet: its story would only look
		// like the bug (scenario.needs), so nothing starts.
		return nil, fmt.Errorf("scenario %s is not run: kchaos %s", s.Name, needs)
	}
	cl := opts.Clusters.claim(ctx, s, opts)
	dir := cl.dir
	if dir == "" {
		var err error
		if dir, err = prepareRun(cl.s, opts.Store, opts.Overridden); dir == "" || err != nil {
			cl.release()
			if dir == "" {
				return nil, err
			}
			return &RunResult{Dir: dir}, err
		}
	}
	return runIn(ctx, cl, opts, dir)
}

// runIn is Run in a prepared folder, on the cluster cl says.
func runIn(ctx context.Context, cl claim, opts Options, dir string) (*RunResult, error) {
	log, ev := orDiscard(opts.Log), opts.Progress
	if ev == nil {
		ev = progress.Discard
	}
	out := &RunResult{Dir: dir}
	log.Info("run folder", "dir", dir, "seed", cl.s.Seed)

	r := &run{s: cl.s, opts: opts, log: log, ev: ev, out: out, dir: dir, cl: cl}
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.interruptedAt = r.phase
		r.mu.Unlock()
	})
	err := r.play(ctx)
	stop()
	if ctx.Err() != nil {
		r.mu.Lock()
		at := r.interruptedAt
		r.mu.Unlock()
		// The shutdown names the phase at the signal itself; the AfterFunc
		// runs a moment later, when the nemesis may already be healing.
		if i, ok := shutdown.Cause(ctx); ok && i.Phase != "" {
			at = i.Phase
		}
		if at == "" {
			at = r.phase
		}
		out.Interrupted = interruption(ctx, at)
		if err != nil && !isCancel(err) {
			log.Warn("after the interruption", "err", err)
		}
	} else if err != nil {
		return out, err
	}

	// Teardown has copied the nodes' logs: count and mark them for the
	// report (never for the verdict).
	if _, err := brokerlogs.Write(dir, r.started); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("broker logs", "err", err)
	}

	r.setPhase(ctx, progress.Check)
	ev.Event(progress.Event{Phase: progress.Check, Text: "checking the history"})
	var res *checker.Result
	if historyExists(dir) {
		// One decode of the history: the checker reads it, and the report
		// and the metrics take what they need from that pass.
		out.pass = newRunPass()
		res, _, err = checker.CheckPath(dir, checker.Options{Pass: out.pass.p})
		if err != nil {
			ev.Event(progress.Event{Phase: progress.Check, Text: err.Error(), Done: true, Failed: true})
			return out, fmt.Errorf("check: %w", err)
		}
	}
	if out.Interrupted != "" {
		if res, err = markInterrupted(dir, res, out.Interrupted); err != nil {
			return out, fmt.Errorf("check: %w", err)
		}
	}
	out.Result = res
	ev.Event(progress.Event{Phase: progress.Check, Text: verdictText(res), Done: true})

	r.setPhase(ctx, progress.Report)
	ev.Event(progress.Event{Phase: progress.Report, Text: "writing report.md, report.html, junit.xml"})
	if out.pass != nil && out.pass.p.Finished() {
		out.ReportErr = report.WriteScan(dir, out.pass.report)
	} else {
		out.ReportErr = report.Write(dir)
	}
	if out.ReportErr == nil && !opts.NoScreenshot {
		if err := report.Screenshot(dir); err != nil {
			log.Warn("report screenshot", "err", err)
		}
	}
	if out.ReportErr != nil {
		ev.Event(progress.Event{Phase: progress.Report, Text: out.ReportErr.Error(), Done: true, Failed: true})
	} else {
		ev.Event(progress.Event{Phase: progress.Report, Text: dir, Done: true})
	}
	return out, nil
}

func verdictText(res *checker.Result) string {
	v := res.Valid.String()
	if len(res.Reasons) > 0 {
		v += " (" + res.Reasons[0] + ")"
	}
	return v
}

// run is one Run's state.
type run struct {
	s    *scenario.Scenario
	opts Options
	log  *slog.Logger
	ev   progress.Sink
	out  *RunResult
	dir  string
	// cl is what the batch's Clusters handed the run (claim): a cluster
	// started ahead or left by an earlier run, whether the run may keep
	// its own for the next, how the next one starts. One value, the
	// engine's answer, not a field per speed-up threaded through phases.
	cl claim

	started time.Time // the history's time zero, wall clock (run.json)
	info    histories.RunInfo
	// voters are the quorum's voters at the start of a cluster's first
	// run (a kept cluster must still have them).
	voters []int32
	// env and runner are the nemesis's, once the workload ran; deferred
	// is set when ahead waits for the reuse decision.
	env      *nemesis.Env
	runner   *nemesis.Runner
	deferred bool
	// routed is the request proxy made before the cluster when the
	// brokers' own requests are faulted (routedRequestProxy).
	routed *requestProxy
	// bootstrapErr is the bootstrap schedule's error (bootstrap.go): the
	// schedule did not play out, as NemesisErr says of the run's.
	bootstrapErr error

	mu            sync.Mutex
	phase         string // for "interrupted at <phase>"
	interruptedAt string
}

func (r *run) setPhase(ctx context.Context, p progress.Phase, detail ...string) {
	name := string(p)
	if len(detail) > 0 && detail[0] != "" {
		name += " (" + detail[0] + ")"
	}
	r.mu.Lock()
	r.phase = name
	r.mu.Unlock()
	shutdown.SetPhase(ctx, name)
}

// play starts the cluster and the topic, runs the workload, observer and
// nemesis, reads every partition to its end, and tears down (always).
func (r *run) play(ctx context.Context) (err error) {
	s, ev := r.s, r.ev
	cfg := s.Cluster.ClusterConfig()
	cfg.LogDir = filepath.Join(r.dir, "logs")
	r.routed = routedRequestProxy(s, &cfg, r.log) // requestproxy.go; nil unless the brokers' requests are faulted
	defer r.routed.close()                        // after the teardown (deferred below): it carries their replication
	r.setPhase(ctx, progress.Cluster)
	rec, err := r.bootstrapHistory(&cfg) // bootstrap.go; nil without nemesis.bootstrap
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if rec != nil && !closed {
			_ = rec.Close()
		}
	}()
	c, teardown, err := r.takeCluster(ctx, cfg)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer func() { r.releaseCluster(ctx, c, teardown, err) }()

	adm, err := c.Admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	t := s.Topic
	r.setPhase(ctx, progress.Topic)
	ev.Event(progress.Event{Phase: progress.Topic, Text: fmt.Sprintf("creating %s (%d partition(s), RF %d)", t.Name, t.Partitions, t.ReplicationFactor)})
	if err := adm.CreateTopic(ctx, s.TopicSpec()); err != nil {
		ev.Event(progress.Event{Phase: progress.Topic, Text: err.Error(), Done: true, Failed: true})
		return err
	}
	ev.Event(progress.Event{Phase: progress.Topic, Text: "created " + t.Name, Done: true})
	if cfg.Backend == scenario.BackendSSH {
		// On the operator's own cluster kchaos removes the topic it made
		// (and only that one) once the final read has it in the history.
		defer func() {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := adm.DeleteTopic(dctx, t.Name); err != nil {
				r.log.Warn("delete the run's topic", "topic", t.Name, "err", err)
			} else {
				r.log.Info("deleted the run's topic", "topic", t.Name)
			}
		}()
	}
	info, err := runInfo(ctx, s, c, adm, r.cl.lease) // a lease knows the node configs
	if err != nil {
		return err
	}
	info.Cluster = clusterUse(c, r.cl.lease)
	r.out.Cluster = info.Cluster
	if r.cl.keep != nil && r.cl.lease == nil && Reusable(s) == "" {
		if q, qerr := adm.Quorum(ctx); qerr == nil {
			r.voters = q.VoterIDs()
		}
	}
	if rec == nil {
		if rec, err = histories.Create(filepath.Join(r.dir, checker.HistoryFile)); err != nil {
			return err
		}
	}
	info.Started = rec.Start().Round(0).UTC()
	r.started = info.Started
	r.info = info
	if err := histories.WriteRunInfo(filepath.Join(r.dir, histories.RunInfoFile), info); err != nil {
		return err
	}
	if err := r.workload(ctx, c, adm, rec); err != nil {
		return err
	}
	closed = true
	if err := rec.Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// clientRunner is where driver java's JVMs run: in c's environment when
// its backend runs clients there (cluster.ClientRunner; Docker: a
// container of the run's own beside the brokers, on the run's network,
// as a service's client runs beside its brokers), else nil: on the
// kchaos host (SSH). The observer, the admin client and the Go clients
// stay on the host either way.
func clientRunner(c cluster.Cluster) cluster.ClientRunner {
	if r, ok := c.(cluster.ClientRunner); ok {
		return r
	}
	return nil
}

// workload runs the workload, the observer and the nemesis together, then
// the final read.
func (r *run) workload(ctx context.Context, c cluster.Cluster, adm *admin.Client, rec *histories.Recorder) error {
	s, opts, log, ev, out := r.s, r.opts, r.log, r.ev, r.out
	oopts := workloads.ObserverOptions{Tiered: s.Cluster.Tiered != nil}
	ctrl := controllersOf(c, log)
	if ctrl != nil {
		defer ctrl.Close()
		oopts.Controllers = ctrl
	}
	obs := workloads.NewObserver(adm, rec, s.Topic.Name, oopts)
	obs.Start(ctx)
	defer obs.Stop()

	// The workload runs for at least workload.duration, and on until the
	// schedule (with its final heal) is done plus Tail: its own clock is
	// set far out and the run stops it.
	wcfg := s.WorkloadConfig()
	wcfg.Duration = workloads.Duration(24 * time.Hour)
	rp, err := startRequestProxy(ctx, s, c, r.routed, log) // requestproxy.go
	if err != nil {
		return err
	}
	defer rp.closeUnlessRouted()
	wcfg.Runner = clientRunner(c)
	wl, err := workloads.New(wcfg, rp.clientBootstrap(c), rec)
	if err != nil {
		return err
	}
	wl.ReadEvidenceFrom(c.Bootstrap())
	r.setPhase(ctx, progress.Workload)
	ev.Event(progress.Event{Phase: progress.Workload, Text: fmt.Sprintf("%d producer(s), %d consumer(s), acks %s, at least %s",
		s.Workload.Producers, s.Workload.Consumers, s.Workload.Acks, s.Workload.Duration)})
	wctx, stopWorkload := context.WithCancel(ctx)
	defer stopWorkload()
	type wlResult struct {
		stats workloads.Stats
		err   error
	}
	wlDone := make(chan wlResult, 1)
	out.WorkloadStarted = time.Now()
	go func() {
		st, err := wl.Run(wctx)
		wlDone <- wlResult{st, err}
	}()
	// The schedule starts once the clients are open, or failed to (a JVM
	// takes seconds to start: workloads.Workload.Opened).
	select {
	case <-wl.Opened():
	case <-ctx.Done():
	}
	meta, err := startMetadata(wctx, s, c, rp.clientBootstrap(c), rec, log) // metadata.go; nil without workload.metadata
	if err != nil {
		return err
	}
	every := opts.ProgressEvery
	if every == 0 {
		every = 2 * time.Second
	}
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		for st := range wl.Progress(wctx, every) {
			ev.Event(progress.Event{Phase: progress.Workload, Stats: &st})
		}
	}()

	steps := newStepTracker(r, ctx)
	env := &nemesis.Env{Cluster: c, Admin: adm, Topic: s.Topic.Name, Recorder: rec, Log: steps.logger(log), Seed: s.Seed,
		TransactionalIDs: s.Workload.TransactionalIDs(), Members: wl.Group(), GroupID: s.Workload.Group.ID, ShareGroup: s.Workload.Shares.Group, Clients: wl}
	if ctrl != nil {
		env.Quorum = ctrl
	}
	env.ClientPrefixes = workloads.ClientIDPrefixes(wcfg)
	rp.attach(env)
	runner := &nemesis.Runner{Env: env, HealTimeout: s.Final.RecoverTimeout.Std(), OnStep: steps.onStep}
	r.env, r.runner = env, runner
	minEnd := time.After(s.Workload.Duration.Std())
	out.NemesisErr = errors.Join(r.bootstrapErr, runner.Run(ctx, s.Nemesis))
	steps.healed(out.NemesisErr)
	if out.NemesisErr != nil && ctx.Err() == nil {
		log.Warn("nemesis schedule", "err", out.NemesisErr)
	}
	select {
	case <-minEnd:
	case <-ctx.Done():
	}
	select {
	case <-time.After(tail):
	case <-ctx.Done():
	}
	// Stop lets in-flight sends finish (each within its own timeout);
	// cancelling wctx instead would abort them as info.
	wl.Stop()
	metaErr := meta.stop()
	res := <-wlDone
	stopWorkload()
	<-progressDone
	out.WorkloadEnded = time.Now()
	// The next run's cluster starts now that no workload runs, unless
	// this cluster may be kept for it (then once it is refused: play).
	if r.cl.ahead != nil && ctx.Err() == nil {
		if r.mayKeep() {
			r.deferred = true
		} else {
			r.cl.ahead()
		}
	}
	if res.err == nil {
		res.err = metaErr
	}
	if res.err != nil {
		ev.Event(progress.Event{Phase: progress.Workload, Text: res.err.Error(), Done: true, Failed: true})
		return fmt.Errorf("workload: %w", res.err)
	}
	ev.Event(progress.Event{Phase: progress.Workload, Stats: &res.stats, Done: true})
	log.Info("workload done", "acked", res.stats.Acked, "failed", res.stats.Failed, "indeterminate", res.stats.Indeterminate)

	return r.finalRead(ctx, c, adm, rec, wl, meta, env) // finalread.go
}
