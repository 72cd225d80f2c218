// Package harness runs a scenario end to end: cluster → topic → workload,
// observer and nemesis schedule → heal → final read → check → report, and
// writes everything into a run folder of the store.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/report"
	"github.com/kchaos/kchaos/workloads"
)

// Options tune a run.
type Options struct {
	// Store is the store folder (default ./store).
	Store string
	// Log receives progress lines; nil discards them.
	Log *slog.Logger
	// Progress, when set, receives workload stats every ProgressEvery.
	Progress      func(workloads.Stats)
	ProgressEvery time.Duration
	// NoScreenshot skips the headless-Chromium screenshot of report.html.
	NoScreenshot bool
	// Overridden lists user config keys kchaos replaced (for the report).
	Overridden []string
}

// Outcome is what a run produced.
type Outcome struct {
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
}

// Tail is how long the workload keeps running after the nemesis schedule
// finished (and its final heal), so the history shows the recovery.
const Tail = 3 * time.Second

// Run runs s and returns its outcome. An error means the run could not be
// made (no cluster, no topic, a broken history): the CLI exits 255. The
// run folder is kept whatever happens, with whatever history was written.
func Run(ctx context.Context, s *scenario.Scenario, opts Options) (*Outcome, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.Seed == 0 {
		s.Seed = time.Now().UnixNano() & (1<<53 - 1)
	}
	dir, err := newRunDir(opts.Store, s.Name)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Dir: dir}
	if b, err := s.Marshal(); err == nil {
		err = os.WriteFile(filepath.Join(dir, "scenario.yaml"), b, 0o644)
		if err != nil {
			return out, err
		}
	}
	if len(opts.Overridden) > 0 {
		if err := writeJSON(filepath.Join(dir, "overrides.json"), opts.Overridden); err != nil {
			return out, err
		}
	}
	log.Info("run folder", "dir", dir, "seed", s.Seed)

	cfg := s.Cluster.ClusterConfig()
	cfg.LogDir = filepath.Join(dir, "logs")
	begin := time.Now()
	c, err := startCluster(ctx, cfg)
	if err != nil {
		return out, fmt.Errorf("cluster: %w", err)
	}
	defer func() {
		tctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.Teardown(tctx); err != nil {
			log.Warn("teardown", "err", err)
		}
	}()
	log.Info("cluster ready", "run", c.RunID(), "took", time.Since(begin).Round(100*time.Millisecond),
		"bootstrap", c.Bootstrap())

	adm, err := c.Admin()
	if err != nil {
		return out, err
	}
	defer adm.Close()
	t := s.Topic
	if err := adm.CreateTopic(ctx, admin.TopicSpec{Name: t.Name,
		Assignment: t.AssignmentOrDefault(s.Cluster.Brokers), Configs: t.Configs}); err != nil {
		return out, err
	}
	if err := histories.WriteRunInfo(filepath.Join(dir, histories.RunInfoFile), runInfo(s, c)); err != nil {
		return out, err
	}
	rec, err := histories.Create(filepath.Join(dir, checker.HistoryFile))
	if err != nil {
		return out, err
	}
	closed := false
	defer func() {
		if !closed {
			_ = rec.Close()
		}
	}()

	if err := play(ctx, s, c, adm, rec, opts, log, out); err != nil {
		return out, err
	}
	if err := rec.Close(); err != nil {
		return out, fmt.Errorf("history: %w", err)
	}
	closed = true
	// Copy the logs now (teardown does it again, harmlessly) so that the
	// report can link them.
	_ = c.CopyLogs(ctx, cfg.LogDir)

	res, _, err := checker.CheckPath(dir, checker.Options{})
	if err != nil {
		return out, fmt.Errorf("check: %w", err)
	}
	out.Result = res
	out.ReportErr = report.Write(dir)
	if out.ReportErr == nil && !opts.NoScreenshot {
		if err := report.Screenshot(dir); err != nil {
			log.Warn("report screenshot", "err", err)
		}
	}
	return out, nil
}

// play runs the workload, the observer and the nemesis together, then the
// final read.
func play(ctx context.Context, s *scenario.Scenario, c cluster.Cluster, adm *admin.Client,
	rec *histories.Recorder, opts Options, log *slog.Logger, out *Outcome) error {
	obs := workloads.NewObserver(adm, rec, s.Topic.Name, workloads.ObserverOptions{})
	obs.Start(ctx)
	defer obs.Stop()

	// The workload runs for at least workload.duration, and on until the
	// schedule (with its final heal) is done plus Tail: its own clock is
	// set far out and the run stops it.
	wcfg := s.Workload
	wcfg.Duration = workloads.Duration(24 * time.Hour)
	// final.read_timeout is the scenario's bound on the final read (it
	// defaults to workload.final_read_timeout).
	wcfg.FinalReadTimeout = s.Final.ReadTimeout
	wl, err := workloads.New(wcfg, c.Bootstrap(), rec)
	if err != nil {
		return err
	}
	wctx, stopWorkload := context.WithCancel(ctx)
	defer stopWorkload()
	type wlResult struct {
		stats workloads.Stats
		err   error
	}
	wlDone := make(chan wlResult, 1)
	go func() {
		st, err := wl.Run(wctx)
		wlDone <- wlResult{st, err}
	}()
	if opts.Progress != nil {
		every := opts.ProgressEvery
		if every == 0 {
			every = 5 * time.Second
		}
		go func() {
			for st := range wl.Progress(wctx, every) {
				opts.Progress(st)
			}
		}()
	}

	env := &nemesis.Env{Cluster: c, Admin: adm, Topic: s.Topic.Name, Recorder: rec, Log: log, Seed: s.Seed}
	runner := &nemesis.Runner{Env: env, HealTimeout: s.Final.RecoverTimeout.Std()}
	minEnd := time.After(s.Workload.Duration.Std())
	out.NemesisErr = runner.Run(ctx, s.Nemesis)
	if out.NemesisErr != nil {
		log.Warn("nemesis schedule", "err", out.NemesisErr)
	}
	select {
	case <-minEnd:
	case <-ctx.Done():
	}
	select {
	case <-time.After(Tail):
	case <-ctx.Done():
	}
	// Stop lets in-flight sends finish (each within its own timeout);
	// cancelling wctx instead would abort them as info.
	wl.Stop()
	res := <-wlDone
	stopWorkload()
	if res.err != nil {
		return fmt.Errorf("workload: %w", res.err)
	}
	log.Info("workload done", "acked", res.stats.Acked, "failed", res.stats.Failed, "indeterminate", res.stats.Indeterminate)

	// After a Ctrl-C the final read still runs, on a fresh context bounded
	// by its timeout, so the history stays checkable.
	fctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(context.Background(), s.Final.ReadTimeout.Std()+10*time.Second)
		defer cancel()
	}
	fr, err := wl.FinalRead(fctx, adm)
	out.FinalRead = fr
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("final read: %w", err)
	}
	return nil
}

func runInfo(s *scenario.Scenario, c cluster.Cluster) histories.RunInfo {
	info := histories.RunInfo{
		Scenario: s.Name, Seed: s.Seed, KafkaVersion: c.Config().KafkaVersion,
		Topic: s.Topic.Name, Partitions: s.Topic.Partitions, Replication: s.Topic.ReplicationFactor,
		TopicConfigs: s.Topic.Configs,
		Producer:     s.Workload.ProducerInfo(),
	}
	v := c.Version()
	elr := v.ELRDefault()
	if e := c.Config().ELR; e != nil {
		elr = *e
	}
	info.ELR = elr && v.HasELR()
	for _, b := range c.Brokers() {
		info.Brokers = append(info.Brokers, histories.BrokerInfo{ID: b.ID, Rack: b.Rack, Address: b.Addr()})
	}
	for _, n := range c.Controllers() {
		info.Controllers = append(info.Controllers, n.ID)
	}
	return info
}
