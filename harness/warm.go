package harness

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
)

// warm is a run whose cluster starts ahead of it: Clusters starts run
// i+1's cluster when run i's workload stops (claim.ahead),
// so that it boots while run i reads, tears down, checks and reports,
// and run i+1's workload starts seconds after run i's ended instead of a
// cluster start later. Only the Docker backend starts ahead (an SSH
// cluster is the operator's, already up); a Warm of another backend
// starts its cluster when it runs, as Run does.
type warm struct {
	s   *scenario.Scenario
	log *slog.Logger
	dir string

	done     chan struct{}
	cancel   context.CancelFunc // ends a start still under way (Discard)
	c        cluster.Cluster
	teardown func() error
	err      error
	took     time.Duration
	used     bool // discarded (a Warm is discarded once)
}

// startWarm prepares s's run (its seed and its folder under store, as Run
// does) and starts its cluster in the background; it takes what it needs
// of the run's options, not the options, so that a warm start stays below
// the run that uses it. Clusters hands it to the run of s, or
// Discards it: a Warm neither run nor discarded leaves its containers
// behind until the shutdown's teardown. The start reports no progress
// (the run before it owns the terminal); the run tells how long it took.
func startWarm(ctx context.Context, s *scenario.Scenario, store string, overridden []string, log *slog.Logger) (*warm, error) {
	dir, err := prepareRun(s, store, overridden)
	if err != nil {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	w := &warm{s: s, log: orDiscard(log), dir: dir, done: make(chan struct{})}
	cfg := s.Cluster.ClusterConfig()
	if (cfg.Backend != "" && cfg.Backend != scenario.BackendDocker) || s.Nemesis.RoutesInterBroker() {
		close(w.done) // started by Run, in its turn (a routed cluster starts with its run's proxy)
		return w, nil
	}
	cfg.LogDir = filepath.Join(dir, "logs")
	// Its own context, so that Discard need not wait for a boot it will
	// tear down (a start that fails removes what it made). Only Discard
	// cancels it: the cluster a run uses lives on the run's context.
	sctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	go func() {
		defer close(w.done)
		begin := time.Now()
		w.c, w.teardown, w.err = startCluster(sctx, cfg, progress.Discard, w.log)
		w.took = time.Since(begin)
	}()
	return w, nil
}

// discard stops the cluster's start, or tears the cluster down, and
// removes the run's folder.
func (w *warm) discard() {
	if w.used {
		return
	}
	w.used = true
	if w.cancel != nil {
		w.cancel()
	}
	<-w.done
	if w.teardown != nil {
		_ = w.teardown()
	}
	_ = os.RemoveAll(w.dir)
}

// wait is the started cluster (or, for a backend that does not start
// ahead, one started now), reported as startCluster reports it.
func (w *warm) wait(ctx context.Context, ev progress.Sink, cfg cluster.Config) (cluster.Cluster, func() error, error) {
	select {
	case <-w.done:
	case <-ctx.Done():
		<-w.done // the start ends on ctx too; its teardown is ours
	}
	if w.c == nil && w.err == nil {
		return startCluster(ctx, cfg, ev, w.log) // the run's own config: its dir is w.dir
	}
	if w.err != nil {
		ev.Event(progress.Event{Phase: progress.Cluster, Text: w.err.Error(), Done: true, Failed: true})
		return nil, nil, w.err
	}
	ev.Event(progress.Event{Phase: progress.Cluster, Done: true,
		Text: fmt.Sprintf("started ahead in %.1f s (run %s)", w.took.Seconds(), w.c.RunID())})
	return w.c, w.teardown, nil
}
