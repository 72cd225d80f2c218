package harness

import (
	"context"
	"fmt"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/progress"

	"github.com/kchaos/kchaos/harness/scenario"
)

// Clusters decides which cluster each run of a batch runs on: the one the
// run before kept (Reuse), one started ahead while the run before was
// finishing (Warm), or a fresh one. It is the one place that knows about
// both speed-ups, so that Run, and the engine that calls it, only ask it
// (Options.Clusters) instead of threading a kept cluster and a warm one
// through every phase of a run. A nil *Clusters starts a fresh cluster for
// every run, and starts nothing ahead: what matrix, suite and audit do,
// because their cells differ in settings and a cell's figures must not
// depend on what the cell before it left.
//
// The batch announces the run that follows the next one (Announce) before
// each run it owns: only an announced run may keep its cluster for the
// next, and the next run's cluster is started ahead when the run's
// workload stops (never while one runs: a booting cluster must not steal
// the cores a fault's timing depends on), or, when the run may keep its
// cluster, only once that is refused. A run announced with a nil next (a
// guided run, a shrink's candidate: what follows is not known yet) keeps
// and takes kept clusters but has nothing started ahead. A run that was
// not announced (a shrink's final rerun, which measures the repro's rate
// as `kchaos run` runs it) runs on a fresh cluster, and what was kept or
// started ahead is torn down first: a repro's rate must never depend on
// what an earlier run left, and no cluster idles beside a running one.
//
// Not safe for concurrent use: runs are one at a time.
type Clusters struct {
	// keep holds the cluster a run left for the next (nil: never kept).
	keep *reuse
	// next is the announced run after the coming one, nextStore its
	// store; announced says the coming run is the batch's own.
	next      *scenario.Scenario
	nextStore string
	announced bool
	// warm is the announced run started ahead (its cluster booting or up).
	warm *warm
	// Started counts runs that found their cluster started ahead.
	Started int
}

// NewClusters is the provider of a batch that starts each next run's
// cluster ahead and, with keep, lets a run leave its cluster to the next
// while nothing refuses it (Reuse).
func NewClusters(keep bool) *Clusters {
	cs := &Clusters{}
	if keep {
		cs.keep = newReuse()
	}
	return cs
}

// Announce says which run follows the coming one (nil: none) and in which
// store its folder goes. The cluster kept or started ahead stays: it is
// the coming run's (Close ends). Nil-safe: a batch of fresh clusters
// announces to no one.
func (cs *Clusters) Announce(next *scenario.Scenario, store string) {
	if cs == nil {
		return
	}
	cs.next, cs.nextStore, cs.announced = next, store, true
}

// Close tears down a cluster started ahead that no run used, and a kept
// one. Nil-safe.
func (cs *Clusters) Close() {
	if cs == nil {
		return
	}
	if cs.warm != nil {
		cs.warm.discard()
		cs.warm = nil
	}
	if cs.keep != nil {
		_ = cs.keep.Close()
	}
}

// claim is what the provider hands one run: the scenario it runs (fresh
// names on a kept cluster), its folder when it was made ahead, where its
// cluster comes from, and what the run does for the next one.
type claim struct {
	s     *scenario.Scenario
	dir   string // "": Run makes it
	warm  *warm  // the cluster started ahead for this run
	lease *held  // the cluster the run before kept
	// keep, when set, takes the run's cluster at its end unless something
	// refuses it; ahead starts the next run's cluster (once the workload
	// stopped, and, when the run may keep its cluster, once refused).
	keep  *reuse
	ahead func()
}

// claim decides the cluster of a run of s with opts (nil cs: a fresh one).
func (cs *Clusters) claim(ctx context.Context, s *scenario.Scenario, opts Options) claim {
	cl := claim{s: s}
	if cs == nil {
		return cl
	}
	warm := cs.warm
	cs.warm = nil
	if warm != nil && warm.s != s {
		warm.discard() // started for a run that did not come
		warm = nil
	}
	next, nextStore, announced := cs.next, cs.nextStore, cs.announced
	cs.next, cs.announced = nil, false
	if cs.keep != nil {
		if announced && (next == nil || sameCluster(s, next)) {
			cl.keep = cs.keep
		} else {
			_ = cs.keep.Close() // a run of its own: on a fresh cluster
		}
	}
	if next != nil {
		cl.ahead = func() {
			if w, err := startWarm(ctx, next, nextStore, opts.Overridden, opts.Log); err == nil {
				cs.warm = w
			}
		}
	}
	switch {
	case warm != nil:
		cs.Started++
		cl.warm, cl.dir = warm, warm.dir
	case cl.keep != nil:
		if cl.lease = cl.keep.take(s); cl.lease != nil {
			cl.s = s.Fresh(freshSuffix(cl.lease.runs))
		}
	}
	return cl
}

// release gives back what a run that could not start was handed.
func (cl claim) release() {
	if cl.lease != nil {
		_ = cl.lease.teardown()
	}
}

// takeCluster is the run's cluster as its claim gave it: the one the run
// before kept, the one started ahead, or a fresh one.
func (r *run) takeCluster(ctx context.Context, cfg cluster.Config) (cluster.Cluster, func() error, error) {
	switch {
	case r.cl.lease != nil:
		c := r.cl.lease.c
		r.ev.Event(progress.Event{Phase: progress.Cluster, Done: true,
			Text: fmt.Sprintf("reusing the cluster of run %s (run %s, %d run(s) on it)", r.cl.lease.last, c.RunID(), r.cl.lease.runs)})
		return c, r.cl.lease.teardown, nil
	case r.cl.warm != nil:
		return r.cl.warm.wait(ctx, r.ev, cfg)
	}
	return startCluster(ctx, cfg, r.ev, r.log)
}

// releaseCluster ends the run's hold on c once it played (err: how): the
// remote tier written out, then c kept for the next run when its claim
// may keep it and nothing refuses (reuse.go), else torn down.
func (r *run) releaseCluster(ctx context.Context, c cluster.Cluster, teardown func() error, err error) {
	if rerr := writeRemoteTier(c, r.dir); rerr != nil {
		r.log.Warn("remote tier", "err", rerr)
	}
	if r.cl.keep != nil {
		if r.keepOrRefuse(ctx, c, teardown, err) {
			return
		}
		if r.deferred && ctx.Err() == nil {
			r.cl.ahead() // refused: the next cluster starts now
		}
	}
	if terr := teardown(); terr != nil && err == nil && ctx.Err() == nil {
		r.log.Warn("teardown", "err", terr)
	}
}
