package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
)

// reuse keeps a cluster between runs (kchaos explore, issue 24; its
// Clusters asks it): a run it is offered to runs on the cluster the run
// before it left there
// when its cluster settings are the same, and at its end leaves its own
// cluster there instead of tearing it down when nothing refuses it. What
// refuses it (Reuse.Refused says which, per run):
//
//   - a scenario whose cluster is not kchaos's own to reuse (Reusable:
//     another backend, a tiered cluster, the metadata workload);
//   - a run that failed, was interrupted, or whose final heal failed;
//   - a fault kind that leaves state a heal does not undo: each kind says
//     so in the nemesis registry (nemesis.Kind.LeavesState);
//   - a cluster that is not healthy after the run's final read: a node not
//     running or paused, a broker not registered and unfenced, the
//     controller quorum's voters not those of the cluster's first run, or
//     no quorum leader (checkHealth).
//
// A run on a reused cluster gets fresh names (scenario.Fresh: topic,
// transactional ids, consumer and share group), its own history, observer,
// folder and the slice of every node's log written since the run before
// it handed the cluster over; run.json says which cluster it ran on and
// after which run (histories.ClusterUse). Close tears the kept cluster
// down. Safe for one run at a time.
type reuse struct {
	mu      sync.Mutex
	held    *held
	refused string
}

// held is a cluster kept between runs.
type held struct {
	c        cluster.Cluster
	teardown func() error
	key      cluster.Config // the settings it was started with (reuseKey)
	// last is the folder name of the last run on it, runs how many ran.
	last string
	runs int
	// offsets is how much of each node's log earlier runs wrote out.
	offsets map[int32]int
	// voters is the quorum's voter set at the cluster's first run.
	voters []int32
	// nodeConfigs are run.json's broker and controller configs, read from
	// the nodes at the first run: a reused cluster's nodes were not
	// restarted with other ones (no fault that changes them is reused).
	brokerConfigs, controllerConfigs map[int32]map[string]string
}

// newReuse is an empty Reuse.
func newReuse() *reuse { return &reuse{} }

// holds reports whether r keeps a cluster now.
func (r *reuse) holds() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held != nil
}

// Refused says why the last run that offered its cluster did not leave it
// ("" when it did).
func (r *reuse) Refused() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused
}

// Close tears the kept cluster down (its logs were written out by the
// runs).
func (r *reuse) Close() error {
	if h := r.detach(); h != nil {
		return h.teardown()
	}
	return nil
}

// detach takes the kept cluster out of r (nil: none kept).
func (r *reuse) detach() *held {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.held
	r.held = nil
	return h
}

// take hands the kept cluster to a run of s when its settings are s's;
// one that does not fit is torn down (one cluster at a time), and nil
// returned.
func (r *reuse) take(s *scenario.Scenario) *held {
	h := r.detach()
	if h == nil {
		return nil
	}
	if Reusable(s) != "" || !reflect.DeepEqual(h.key, reuseKey(s)) {
		_ = h.teardown()
		return nil
	}
	return h
}

func (r *reuse) put(h *held) {
	r.mu.Lock()
	r.held, r.refused = h, ""
	r.mu.Unlock()
}

func (r *reuse) refuse(why string) {
	r.mu.Lock()
	r.refused = why
	r.mu.Unlock()
}

// sameCluster reports whether runs of a and b would start the same
// cluster (image and version, nodes, configs, backend): only then can one
// run on the other's.
func sameCluster(a, b *scenario.Scenario) bool { return reflect.DeepEqual(reuseKey(a), reuseKey(b)) }

// reuseKey is s's cluster settings without what names one run's cluster.
func reuseKey(s *scenario.Scenario) cluster.Config {
	cfg := s.Cluster.ClusterConfig()
	cfg.RunID, cfg.LogDir = "", ""
	cfg.Defaults()
	return cfg
}

// Reusable says why no run of s may share its cluster with another ("":
// it may): only a Docker cluster is kchaos's own to keep (an SSH cluster
// is the operator's); a tiered cluster's remote tier holds every run's
// segments under one folder; the metadata workload's topics are named by
// a fixed prefix (kchaos-meta-), so a run would read the last one's.
func Reusable(s *scenario.Scenario) string {
	switch {
	case s.Cluster.BackendName() != scenario.BackendDocker:
		return "backend " + s.Cluster.BackendName() + ": the cluster is the operator's"
	case s.Cluster.Tiered != nil:
		return "a tiered cluster: its remote tier holds every run's segments"
	case s.Workload.Metadata.Enabled():
		return "the metadata workload: its topics (kchaos-meta-*) are shared by name"
	case s.Nemesis.RoutesInterBroker():
		return "request faults on the brokers' own requests: the cluster's replication passes the run's proxy"
	case len(s.Nemesis.Bootstrap) > 0:
		return "a bootstrap schedule: its faults strike the cluster while it starts, so its run starts one"
	}
	return ""
}

// freshSuffix is the names' suffix of a cluster's run after runs others.
func freshSuffix(runs int) string { return fmt.Sprintf("-reuse%d", runs) }

// healthLimit bounds the health check of a cluster to keep.
const healthLimit = 20 * time.Second

// keepOrRefuse runs at the end of a run that may keep its cluster
// (r.cl.keep), after its final read (its error err): it writes the run's
// slice of the node logs
// and either leaves the cluster in the Reuse (true) or says why not
// (false: the caller tears it down, without the backend's own log copy).
func (r *run) keepOrRefuse(ctx context.Context, c cluster.Cluster, teardown func() error, err error) bool {
	reuse := r.cl.keep
	if reuse == nil || Reusable(r.s) != "" {
		return false
	}
	h := r.cl.lease
	if h == nil {
		h = &held{c: c, teardown: teardown, key: reuseKey(r.s), offsets: map[int32]int{}, voters: r.voters,
			brokerConfigs: r.info.BrokerConfigs, controllerConfigs: r.info.ControllerConfigs}
	}
	r.ev.Event(progress.Event{Phase: progress.Teardown, Text: "writing this run's slice of the node logs; checking the cluster to keep it for the next run"})
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), TeardownTimeout)
	defer cancel()
	if lerr := h.writeLogs(lctx, filepath.Join(r.dir, "logs")); lerr != nil {
		r.log.Warn("logs of a kept cluster", "err", lerr)
	}
	if sl, ok := c.(interface{ SetLogDir(string) }); ok {
		sl.SetLogDir("") // written above, slice by slice
	}
	why := r.refusal(ctx, c, h, err)
	if why != "" {
		reuse.refuse(why)
		r.log.Info("cluster not kept for the next run", "why", why)
		r.out.ReuseRefused = why
		r.ev.Event(progress.Event{Phase: progress.Teardown, Text: "not kept: " + why})
		return false
	}
	h.last, h.runs = filepath.Base(r.dir), h.runs+1
	reuse.put(h)
	r.ev.Event(progress.Event{Phase: progress.Teardown, Done: true, Text: fmt.Sprintf("kept run %s's cluster for the next run (healthy; %d run(s) on it)", c.RunID(), h.runs)})
	r.log.Info("cluster kept for the next run", "run", c.RunID(), "runs", h.runs)
	return true
}

// refusal says why the run's cluster may not be kept ("": it may).
func (r *run) refusal(ctx context.Context, c cluster.Cluster, h *held, err error) string {
	switch {
	case err != nil:
		return "the run failed: " + err.Error()
	case ctx.Err() != nil:
		return "the run was interrupted"
	case r.env == nil || r.runner == nil:
		return "the schedule did not run"
	case r.runner.HealErr != nil:
		return "the final heal failed: " + r.runner.HealErr.Error()
	}
	if leaves := r.env.Leaves(); len(leaves) > 0 {
		return "a fault leaves state a heal does not undo: " + strings.Join(leaves, "; ")
	}
	hctx, cancel := context.WithTimeout(ctx, healthLimit)
	defer cancel()
	if herr := checkHealth(hctx, c, h.voters); herr != nil {
		return "unhealthy after the run: " + herr.Error()
	}
	return ""
}

// mayKeep reports, when the workload stops, whether the run may still
// leave its cluster for the next one: then the next cluster's early start
// (r.cl.ahead) waits until that is decided.
func (r *run) mayKeep() bool {
	return r.cl.keep != nil && Reusable(r.s) == "" && r.env != nil && r.runner != nil &&
		r.runner.HealErr == nil && len(r.env.Leaves()) == 0
}

// checkHealth reports what is wrong with a cluster a run is done with:
// every node running and not paused, every broker registered and
// unfenced, the controller quorum led and its voters those of voters
// (nil: not checked).
func checkHealth(ctx context.Context, c cluster.Cluster, voters []int32) error {
	for _, n := range cluster.AllNodes(c) {
		st, err := c.State(ctx, n.ID)
		switch {
		case err != nil:
			return fmt.Errorf("%s %d: %w", n.Role, n.ID, err)
		case !st.Running:
			return fmt.Errorf("%s %d is not running", n.Role, n.ID)
		case st.Paused:
			return fmt.Errorf("%s %d is paused", n.Role, n.ID)
		}
	}
	limit := healthLimit
	if d, ok := ctx.Deadline(); ok {
		limit = time.Until(d)
	}
	if err := cluster.WaitBrokers(ctx, c, cluster.IDs(c.Brokers()), limit); err != nil {
		return err
	}
	adm, err := c.Admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	q, err := adm.Quorum(ctx)
	if err != nil {
		return fmt.Errorf("the controller quorum: %w", err)
	}
	if q.LeaderID < 0 {
		return errors.New("the controller quorum has no leader")
	}
	if got := q.VoterIDs(); voters != nil && !slices.Equal(got, voters) {
		return fmt.Errorf("the controller quorum's voters are %v, were %v", got, voters)
	}
	return nil
}

// writeLogs writes each node's log written since the last run handed the
// cluster over into dir/<role>-<id>.log, as Teardown's copy names them.
func (h *held) writeLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, n := range cluster.AllNodes(h.c) {
		b, err := h.c.Logs(ctx, n.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("logs of %s %d: %w", n.Role, n.ID, err))
			continue
		}
		off := h.offsets[n.ID]
		if off > len(b) {
			off = 0 // a log that shrank is not one we have written
		}
		h.offsets[n.ID] = len(b)
		errs = append(errs, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.log", n.Role, n.ID)), b[off:], 0o644))
	}
	return errors.Join(errs...)
}

// clusterUse is run.json's record of the cluster a run ran on.
func clusterUse(c cluster.Cluster, lease *held) *histories.ClusterUse {
	u := &histories.ClusterUse{RunID: c.RunID()}
	if ci, ok := c.(interface{ ContainerIDs() map[int32]string }); ok {
		u.Containers = ci.ContainerIDs()
	}
	if lease != nil {
		u.ReusedFrom, u.RunsBefore = lease.last, lease.runs
	}
	return u
}
