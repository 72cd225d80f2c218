package explore

import (
	"context"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
)

// Pipeline is HarnessRunner with the next run's cluster started ahead
// (issue 24, throughput): when a run's workload stops, the cluster of the
// run Explore said comes next (Ahead) starts (harness.StartWarm), and
// boots while this run reads, tears down, checks and reports. Never while
// a workload runs: each cluster starts after the workload before it
// stopped. A run Explore did not announce (a shrink candidate after a
// finding) tears the warm cluster down first and starts its own, so that
// no cluster idles beside a running one.
//
// With reuse (NewPipeline's reuse, the default of kchaos explore), a run
// leaves its cluster to the next one instead of tearing it down, when
// nothing refuses it (harness.Reuse: a fault that leaves state, a failed
// heal, an unhealthy cluster), and the next cluster is started ahead only
// when it refuses. Only the exploration's own runs (each announced by an
// Ahead call before it) share clusters: a shrink's candidates and final
// reruns always run on fresh ones, so that a reproduction never depends on
// what an earlier run left.
//
// Its Run is a Runner; give Ahead to Config.Ahead and Close to
// Config.Close (or call it at the end). Not safe for concurrent use: runs
// are one at a time.
type Pipeline struct {
	opts harness.Options
	// ahead is the run announced to follow the one running; warm the
	// run started ahead (its cluster booting or up).
	ahead      *scenario.Scenario
	aheadStore string
	warm       *harness.Warm
	// reuse keeps a cluster between runs (nil: every run on a fresh one);
	// explored is set by Ahead: the next Run is an exploration run.
	reuse    *harness.Reuse
	explored bool
	// Started counts runs that found their cluster started ahead, Reused
	// those that ran on the cluster of the run before.
	Started, Reused int
}

// NewPipeline is a Pipeline running with opts (its Store is each run's);
// with reuse, runs share a cluster while nothing refuses it.
func NewPipeline(opts harness.Options, reuse bool) *Pipeline {
	p := &Pipeline{opts: opts}
	if reuse {
		p.reuse = harness.NewReuse()
	}
	return p
}

// Ahead announces the run after the next one Run is given (nil: none).
// The cluster started ahead or kept for the next one stays: it is that
// run's (an Ahead(nil) comes before the last run; Close ends).
func (p *Pipeline) Ahead(next *scenario.Scenario, store string) {
	p.ahead, p.aheadStore, p.explored = next, store, true
}

// Close tears down a warm cluster no run used, and a kept one.
func (p *Pipeline) Close() {
	if p.warm != nil {
		p.warm.Discard()
		p.warm = nil
	}
	if p.reuse != nil {
		_ = p.reuse.Close()
	}
}

// Run is a Runner: s on the cluster started ahead for it, or a fresh one.
func (p *Pipeline) Run(ctx context.Context, s *scenario.Scenario, store string) (Judged, error) {
	warm := p.warm
	p.warm = nil
	if warm != nil && warm.Scenario() != s {
		warm.Discard()
		warm = nil
	}
	next, nextStore, explored := p.ahead, p.aheadStore, p.explored
	p.ahead, p.explored = nil, false
	o := p.opts
	o.Store, o.NoScreenshot = store, true
	if p.reuse != nil {
		if explored && (next == nil || harness.SameCluster(s, next)) {
			o.Reuse = p.reuse
		} else {
			_ = p.reuse.Close() // a shrink's run: on a fresh cluster
		}
	}
	if next != nil {
		o.AfterWorkload = func() {
			no := p.opts
			no.Store, no.NoScreenshot, no.Reuse = nextStore, true, o.Reuse
			if w, err := harness.StartWarm(ctx, next, no); err == nil {
				p.warm = w
			}
		}
	}
	var out *harness.RunResult
	var err error
	if warm != nil {
		p.Started++
		out, err = warm.Run(ctx)
	} else {
		out, err = harness.Run(ctx, s, o)
	}
	if out != nil && out.Cluster.Reused() {
		p.Reused++
	}
	return judge(s, out, err)
}
