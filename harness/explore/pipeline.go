package explore

import (
	"context"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
)

// pipeline is HarnessRunner on a harness.Clusters (issue 24, throughput):
// the provider that decides, run by run, whether a run finds its cluster
// kept by the run before (reuse, NewPipeline's reuse, the default of
// kchaos explore), started ahead while the run before was finishing, or
// fresh. What it decides and why (never while a workload runs; only runs
// announced by an Ahead call before them share clusters: the
// exploration's own and a shrink's candidates; a shrink's final reruns
// run on fresh ones) is harness.Clusters's; when to announce is the batch
// engine's (harness.Plan.RunCell, which Explore's plan calls through
// Config.Ahead): Pipeline only hands the announcements on and judges
// what each run gave.
//
// Its Run is a Runner; give Ahead to Config.Ahead and Close to
// Config.Close (or call it at the end): ExploreOnClusters does. Not safe for concurrent use: runs
// are one at a time.
type pipeline struct {
	opts     harness.Options
	clusters *harness.Clusters
	// Started counts runs that found their cluster started ahead, Reused
	// those that ran on the cluster of the run before.
	Started, Reused int
}

// newPipeline is a Pipeline running with opts (its Store is each run's);
// with reuse, runs share a cluster while nothing refuses it.
func newPipeline(opts harness.Options, reuse bool) *pipeline {
	return &pipeline{opts: opts, clusters: harness.NewClusters(reuse)}
}

// ahead announces the run after the next one Run is given (nil: none).
// The cluster started ahead or kept for the next one stays: it is that
// run's (an Ahead(nil) comes before the last run; Close ends).
func (p *pipeline) ahead(next *scenario.Scenario, store string) { p.clusters.Announce(next, store) }

// Close tears down a warm cluster no run used, and a kept one.
func (p *pipeline) Close() { p.clusters.Close() }

// Run is a Runner: s on the cluster the provider gives it.
func (p *pipeline) Run(ctx context.Context, s *scenario.Scenario, store string) (judged, error) {
	o := p.opts
	o.Store, o.NoScreenshot, o.Clusters = store, true, p.clusters
	out, err := harness.Run(ctx, s, o)
	p.Started = p.clusters.Started
	if out != nil && out.Cluster.Reused() {
		p.Reused++
	}
	return judge(s, out, err)
}

// ExploreOnClusters is Explore with its runs on harness.Run (opts; its
// Store is each run's), on a Pipeline: the exploration kchaos explore
// and each cell of a campaign make (reuse: runs share a cluster while
// nothing refuses it). The wiring lives here, once, so that a command
// only parses flags and prints: the engine announces the runs through
// Config.Ahead and Close, which are the Pipeline's.
func ExploreOnClusters(ctx context.Context, cfg Config, opts harness.Options, reuse bool) (*Summary, string, error) {
	pipe := newPipeline(opts, reuse)
	cfg.Ahead, cfg.Close = pipe.ahead, pipe.Close
	return explore(ctx, cfg, pipe.Run)
}

// SharedClusters is one cluster provider for the explorations of a
// campaign's cells (issue 40, item 5): the last run of a cell may leave
// its cluster to the first run of the next cell when their cluster
// settings match, by the rules one run leaves its cluster to the next
// (harness.Clusters: never after a fault that leaves state, a failed run,
// or an unhealthy cluster; a cluster that does not fit the next cell is
// torn down first, so one runs at a time). A campaign then pays a cluster
// start per distinct cluster rather than per cell. Close ends it, at the
// campaign's end.
type SharedClusters struct {
	opts     harness.Options
	clusters *harness.Clusters
}

// NewSharedClusters is a provider whose runs run with opts (each run's
// Store is its own).
func NewSharedClusters(opts harness.Options) *SharedClusters {
	return &SharedClusters{opts: opts, clusters: harness.NewClusters(true)}
}

// Explore is ExploreOnClusters on the shared provider: the exploration
// announces its runs to it and leaves it open for the next cell.
func (sc *SharedClusters) Explore(ctx context.Context, cfg Config) (*Summary, string, error) {
	pipe := &pipeline{opts: sc.opts, clusters: sc.clusters}
	cfg.Ahead, cfg.Close = pipe.ahead, func() {}
	return explore(ctx, cfg, pipe.Run)
}

// Close tears down the cluster the last cell kept, if any.
func (sc *SharedClusters) Close() { sc.clusters.Close() }
