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
// Its Run is a Runner; give Ahead to Config.Ahead and call Close at the
// end (Explore's last Ahead(nil) does). Not safe for concurrent use: runs
// are one at a time.
type Pipeline struct {
	opts harness.Options
	// ahead is the run announced to follow the one running; warm the
	// run started ahead (its cluster booting or up).
	ahead      *scenario.Scenario
	aheadStore string
	warm       *harness.Warm
	// Started counts runs that found their cluster started ahead.
	Started int
}

// NewPipeline is a Pipeline running with opts (its Store is each run's).
func NewPipeline(opts harness.Options) *Pipeline { return &Pipeline{opts: opts} }

// Ahead announces the run after the next one Run is given (nil: none);
// a warm cluster for another run is torn down.
func (p *Pipeline) Ahead(next *scenario.Scenario, store string) {
	p.ahead, p.aheadStore = next, store
	if next == nil {
		p.Close()
	}
}

// Close tears down a warm cluster no run used.
func (p *Pipeline) Close() {
	if p.warm != nil {
		p.warm.Discard()
		p.warm = nil
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
	next, nextStore := p.ahead, p.aheadStore
	p.ahead = nil
	o := p.opts
	o.Store, o.NoScreenshot = store, true
	if next != nil {
		o.AfterWorkload = func() {
			no := p.opts
			no.Store, no.NoScreenshot = nextStore, true
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
	return judge(s, out, err)
}
