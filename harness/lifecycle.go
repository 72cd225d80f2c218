package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/shutdown"
)

// TeardownTimeout bounds a teardown (log copy, containers, network, data).
const TeardownTimeout = 2 * time.Minute

// startCluster starts cfg's cluster and tells ctx's shutdown (if any) what
// teardown will have to remove. The returned teardown always runs on a
// fresh context bounded by TeardownTimeout (after a signal, too) and
// reports its progress. Every command that starts a cluster goes through
// here: Run (and so matrix, suite and audit) and Hold (cluster up).
func startCluster(ctx context.Context, cfg cluster.Config, ev progress.Sink, log *slog.Logger) (cluster.Cluster, func() error, error) {
	if cfg.RunID == "" {
		cfg.RunID = cluster.NewRunID()
	}
	shutdown.SetPhase(ctx, string(progress.Cluster))
	ev.Event(progress.Event{Phase: progress.Cluster, Text: fmt.Sprintf("starting %d controller(s) and %d broker(s), Kafka %s (run %s)",
		max(cfg.Controllers, 1), cfg.Brokers, cfg.KafkaVersion, cfg.RunID)})
	release := shutdown.Track(ctx, tracking(cfg))
	begin := time.Now()
	c, err := startBackend(ctx, cfg)
	release() // Start tears down what it made when it fails
	if err != nil {
		ev.Event(progress.Event{Phase: progress.Cluster, Text: err.Error(), Done: true, Failed: true})
		return nil, nil, err
	}
	ev.Event(progress.Event{Phase: progress.Cluster, Done: true, Text: fmt.Sprintf("ready in %.1f s, bootstrap %s",
		time.Since(begin).Seconds(), strings.Join(c.Bootstrap(), ","))})
	log.Info("cluster ready", "run", c.RunID(), "took", time.Since(begin).Round(100*time.Millisecond), "bootstrap", c.Bootstrap())
	what := describe(c)
	release = shutdown.Track(ctx, what)
	teardown := func() error {
		defer release()
		shutdown.SetPhase(ctx, string(progress.Teardown))
		ev.Event(progress.Event{Phase: progress.Teardown, Text: "removing " + what})
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), TeardownTimeout)
		defer cancel()
		err := c.Teardown(tctx)
		if err != nil {
			log.Warn("teardown", "err", err)
			ev.Event(progress.Event{Phase: progress.Teardown, Text: err.Error(), Done: true, Failed: true})
			return err
		}
		ev.Event(progress.Event{Phase: progress.Teardown, Text: "removed run " + c.RunID(), Done: true})
		return nil
	}
	return c, teardown, nil
}

// describe names what teardown removes.
func describe(c cluster.Cluster) string {
	var names []string
	for _, n := range append(c.Controllers(), c.Brokers()...) {
		names = append(names, n.Name)
	}
	if _, ok := c.(cluster.ClientRunner); ok {
		// The client containers (driver java's JVMs) come and go during
		// the run; the teardown removes them by the run's label too.
		names = append(names, "any client container of the run")
	}
	if d, ok := c.(interface{ NetworkName() string }); ok {
		return fmt.Sprintf("run %s: containers %s and network %s", c.RunID(), strings.Join(names, ", "), d.NetworkName())
	}
	if c.Config().Backend == "ssh" {
		return fmt.Sprintf("run %s: SSH sessions to hosts %s (their Kafka stays)", c.RunID(), strings.Join(names, ", "))
	}
	return fmt.Sprintf("run %s: nodes %s", c.RunID(), strings.Join(names, ", "))
}

// Hold starts cfg's cluster, calls ready, and keeps the cluster until ctx
// is done (a signal, through a shutdown.Shutdown); then tears it down.
// It is `kchaos cluster up`.
func Hold(ctx context.Context, cfg cluster.Config, ev progress.Sink, log *slog.Logger, ready func(cluster.Cluster)) error {
	if ev == nil {
		ev = progress.Discard
	}
	log = orDiscard(log)
	c, teardown, err := startCluster(ctx, cfg, ev, log)
	if err != nil {
		return err
	}
	ready(c)
	shutdown.SetPhase(ctx, "holding the cluster")
	<-ctx.Done()
	return teardown()
}

// interruption says why ctx ended, for results.json: "interrupted at
// workload (nemesis step 3 of 8: kill) by SIGINT".
func interruption(ctx context.Context, phase string) string {
	by := ""
	if i, ok := shutdown.Cause(ctx); ok {
		by = " by " + shutdown.SignalName(i.Signal)
	} else if err := context.Cause(ctx); err != nil {
		by = " (" + err.Error() + ")"
	}
	return "interrupted at " + phase + by
}

// markInterrupted makes an interrupted run's verdict unknown (a verdict of
// invalid stands: what was found was found) with the reason first, and
// rewrites results.json. Without a history (interrupted before the
// workload began) it writes a results.json of its own.
func markInterrupted(dir string, res *checker.Result, reason string) (*checker.Result, error) {
	if res == nil {
		res = &checker.Result{Valid: checker.Unknown}
	}
	if res.Valid == checker.Valid {
		res.Valid = checker.Unknown
	}
	res.Reasons = append([]string{reason}, res.Reasons...)
	return res, checker.WriteResults(filepath.Join(dir, checker.ResultsFile), res)
}

func historyExists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, checker.HistoryFile))
	return err == nil
}

// isCancel reports whether err only says that the run was interrupted.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
