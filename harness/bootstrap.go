package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"path/filepath"
)

// A scenario's bootstrap schedule (nemesis.bootstrap: faults while the
// cluster starts, nemesis/bootstrap.go) runs inside the backend's start
// (cluster.DuringStart), so its run opens the history before the cluster
// starts: the bootstrap's ops are the history's first, and its time zero
// is the start of the cluster, not of the workload. Such a run needs a
// cluster of its own (Reusable refuses it), and its bootstrap is played
// on the nodes and on the controllers alone (nemesis.Runner.RunBootstrap:
// no broker answers yet).

// bootstrapHistory opens the history ahead of the cluster when s has a
// bootstrap schedule, and sets cfg's DuringStart to play it; nil when s
// has none (the history is opened once the topic exists, as always).
func (r *run) bootstrapHistory(cfg *cluster.Config) (*histories.Recorder, error) {
	steps := r.s.Nemesis.Bootstrap
	if len(steps) == 0 {
		return nil, nil
	}
	if r.cl.lease != nil || r.cl.warm != nil {
		return nil, errors.New("a bootstrap schedule needs a cluster started for its run (none kept or started ahead)")
	}
	rec, err := histories.Create(filepath.Join(r.dir, checker.HistoryFile))
	if err != nil {
		return nil, err
	}
	cfg.DuringStart = func(ctx context.Context, c cluster.Cluster) {
		r.bootstrapErr = r.playBootstrap(ctx, c, rec, steps)
	}
	return rec, nil
}

// playBootstrap runs the bootstrap steps on the starting cluster c.
func (r *run) playBootstrap(ctx context.Context, c cluster.Cluster, rec *histories.Recorder, steps []nemesis.Step) error {
	r.ev.Event(progress.Event{Phase: progress.Cluster, Text: fmt.Sprintf("bootstrap schedule: %d step(s) while the nodes start", len(steps))})
	env := &nemesis.Env{Cluster: c, Recorder: rec, Seed: r.s.Seed}
	if ctrl := controllersOf(c, r.log); ctrl != nil {
		defer ctrl.Close()
		env.Quorum = ctrl
	}
	steps2 := newStepTracker(r, ctx)
	env.Log = steps2.logger(r.log)
	runner := &nemesis.Runner{Env: env, HealTimeout: r.s.Final.RecoverTimeout.Std(), OnStep: steps2.onStep}
	err := runner.RunBootstrap(ctx, steps)
	if err != nil && ctx.Err() == nil {
		r.log.Warn("bootstrap schedule", "err", err)
		r.ev.Event(progress.Event{Phase: progress.Cluster, Text: "bootstrap schedule: " + err.Error()})
	}
	return err
}
