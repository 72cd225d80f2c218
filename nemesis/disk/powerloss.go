package disk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// loseUnflushed is the power loss of seed 004: the broker dies without a
// flush and comes back having lost whatever had not reached the disk.
//
// How the loss is made: kill -9, then, through the cluster's LogFiles of
// the dead broker's log dirs (the host side of the bind mounts for Docker,
// a bounded dir's host tmpfs included; the host itself for SSH), cut every
// partition log back to its recovery
// point from recovery-point-offset-checkpoint (CutToRecoveryPoints), and
// remove .kafka_cleanshutdown. Why the checkpoint rather than LazyFS (Jepsen's
// FUSE file system that drops un-fsynced writes at a crash):
//
//   - LazyFS needs FUSE inside the container (/dev/fuse, CAP_SYS_ADMIN or
//     a privileged container) and a custom build of LazyFS into the Kafka
//     image; neither is available to a plain Docker user, and the
//     harness's containers are deliberately unprivileged (NET_ADMIN only).
//   - Kafka never fsyncs on append by default (log.flush.interval.messages
//     is Long.MAX: it acks from the page cache). It fsyncs a segment when it
//     rolls it, and records how far it has flushed as the recovery point,
//     which it checkpoints to this file. So the checkpoint is a
//     conservative lower bound of what is on the platter: everything below
//     it was fsynced; anything above may not have been.
//   - It is exactly what Kafka itself distrusts after a crash: with no
//     clean-shutdown marker, it re-validates every segment from the
//     recovery point on. Cutting there makes the worst case that recovery
//     is designed for actually happen, deterministically, instead of
//     hoping the kernel's writeback timing loses something.
//
// The cut is at a record-batch boundary (batches are written and lost
// whole), so Kafka sees a well-formed but shorter log, the same as after a
// torn write it had truncated. It is more pessimistic than a real power
// cut (which keeps what the kernel wrote back in time), never less.
//
// With model writeback (Writeback) the cut keeps, beyond the recovery
// point, what the kernel's page-cache writeback would have written back by
// the power cut, and drops only the last window.
type loseUnflushed struct {
	target *nemesis.Target
	start  bool
	model  *writeback // nil: the recovery-point model
	nodes  []int32
}

func (f *loseUnflushed) Name() string { return histories.FLoseUnflushed }

func (f *loseUnflushed) Spec() map[string]any {
	m := map[string]any{"target": f.target, "start": f.start}
	for k, v := range f.modelDetails() {
		m[k] = v
	}
	return m
}

// modelDetails says which model a cut used, for the history.
func (f *loseUnflushed) modelDetails() map[string]any {
	if f.model == nil {
		return map[string]any{"model": modelRecoveryPoint}
	}
	return map[string]any{"model": ModelWriteback, "dirty_expire": nemesis.Duration(f.model.DirtyExpire),
		"writeback_interval": nemesis.Duration(f.model.Interval)}
}

// loseUnflushedKind kills brokers and cuts their logs as a power loss
// would leave them. It leaves no state a heal does not undo (LeavesState
// empty): the cut is at a batch boundary, so the restarted broker
// recovers a well-formed shorter log as after a crash and truncates or
// refetches from the leaders; the metadata log is never cut. What it
// loses of internal topics belongs to the group and transactional ids of
// the run that cut it, and a reused cluster's next run has fresh ones.
var loseUnflushedKind = nemesis.Kind{Name: histories.FLoseUnflushed, Needs: cluster.NewCaps(cluster.CapKill, cluster.CapPowerLoss),
	New: func() nemesis.Params { return &LoseUnflushedParams{} }, Heal: nemesis.HealNamed(histories.FKill),
	UndoneBy: []string{histories.FStart, histories.FRestart}, Color: "#7b1111", LosesAcked: nemesis.Yes,
	MovesLeaders: nemesis.Yes, Draw: &nemesis.Draw{Rank: 4},
	Proof: "the node is down when its log is cut: the cut is its record (the offsets cut)"}

// LoseUnflushedParams are a power loss's.
type LoseUnflushedParams struct {
	// Start starts the broker again after the cut.
	Start bool `yaml:"start,omitempty"`
	// Model is the power-loss model: recovery-point (the default: only
	// what Kafka fsynced survives) or writeback (also what the kernel's
	// page-cache writeback had written by the cut; see Writeback), with
	// DirtyExpire and WritebackInterval (Linux's defaults, 30s and 5s,
	// when not given).
	Model             string           `yaml:"model,omitempty"`
	DirtyExpire       nemesis.Duration `yaml:"dirty_expire,omitempty"`
	WritebackInterval nemesis.Duration `yaml:"writeback_interval,omitempty"`
}

func (lp *LoseUnflushedParams) Build(st nemesis.Step) nemesis.Fault {
	return &loseUnflushed{target: st.Target, start: lp.Start, model: lp.writeback()}
}

// writeback is the writeback model the step asks for, defaults filled;
// nil for the recovery-point model.
func (lp *LoseUnflushedParams) writeback() *writeback {
	if lp.Model != ModelWriteback {
		return nil
	}
	w := writeback{DirtyExpire: lp.DirtyExpire.Std(), Interval: lp.WritebackInterval.Std()}
	if w.DirtyExpire == 0 {
		w.DirtyExpire = defaultDirtyExpire
	}
	if w.Interval == 0 {
		w.Interval = defaultWritebackInterval
	}
	return &w
}

// CheckAgainst: the writeback model dates each batch by the broker's
// append time, which only LogAppendTime records carry.
func (lp *LoseUnflushedParams) CheckAgainst(p string, _ *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	if lp.Model == ModelWriteback && !v.LogAppendTime {
		add(p+".model", "writeback dates each batch by the broker's append time: "+
			"set topic.configs.message.timestamp.type: LogAppendTime (or cluster.broker_config.log.message.timestamp.type)")
	}
}

func (lp *LoseUnflushedParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
	if lp.Model != "" && lp.Model != modelRecoveryPoint && lp.Model != ModelWriteback {
		add(p+".model", "unknown model %q (want %s or %s)", lp.Model, modelRecoveryPoint, ModelWriteback)
	}
	for _, f := range []struct {
		name string
		d    nemesis.Duration
	}{{"dirty_expire", lp.DirtyExpire}, {"writeback_interval", lp.WritebackInterval}} {
		switch {
		case f.d != 0 && lp.Model != ModelWriteback:
			add(p+"."+f.name, "only with model writeback")
		case f.d < 0:
			add(p+"."+f.name, "must not be negative")
		}
	}
}

// Inject kills each target node, cuts its logs and, if asked, starts it
// again. A controller has no partition log to cut: its power loss is the
// kill and the clean-shutdown marker removed, so that it recovers its
// metadata log (__cluster_metadata-0) as after a crash (KAFKA-15375's
// ground). The metadata log itself is left as Raft fsynced it: KRaft
// flushes every append before it reports it (to the leader, or as the
// leader to the high watermark), and kchaos cannot see which tail beyond
// that is safe to cut; a guess below what was fsynced could let a voter
// with a shorter log win an election and lose committed metadata that a
// real power cut cannot lose (the same holds for a broker's copy of it). Details list, per broker, the partitions that lost data (always
// those of the workload topic), with the offsets before and after.
func (f *loseUnflushed) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	ids, err := e.Resolve(ctx, f.target)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		if !slices.Contains(e.BrokerIDs(), id) && !slices.Contains(e.ControllerIDs(), id) {
			return nil, nil, fmt.Errorf("node %d is not in this run", id)
		}
	}
	details := f.modelDetails()
	cutoffs := map[string]any{}
	var touched []int32
	var errs []error
	for _, id := range ids {
		var led map[string]int32
		if f.model != nil {
			led = ledPartitions(ctx, e, id)
		}
		// The power goes at the kill: the window is counted back from
		// just before it, which can only cut more.
		at := time.Now()
		if err := powerOff(ctx, e, id); err != nil {
			errs = append(errs, err)
			continue
		}
		touched = append(touched, id)
		dirs, err := logDirFiles(e, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("node %d: log dir: %w", id, err))
			continue
		}
		var res []cutResult
		for i, files := range dirs {
			var r []cutResult
			if f.model != nil {
				r, err = cutLogDirWriteback(ctx, files, *f.model, at, led)
			} else {
				r, err = cutToRecoveryPoints(ctx, files)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("node %d: log dir %d: cut logs: %w", id, i, err))
			}
			res = append(res, r...)
		}
		if f.model != nil {
			cutoffs[fmt.Sprint(id)] = at.Add(-f.model.window()).UTC().Format(time.RFC3339Nano)
		}
		details[fmt.Sprint(id)] = reportCuts(e, res)
	}
	if len(cutoffs) > 0 {
		// Per broker: batches written (page cache) after this were dropped.
		details["written_back_before"] = cutoffs
	}
	f.nodes = touched
	if f.start {
		for _, id := range touched {
			if err := e.Start(ctx, id); err != nil {
				errs = append(errs, err)
			}
		}
		details["started"] = true
	}
	return touched, details, errors.Join(errs...)
}

// powerOff kills node id (thawing it first if paused) and waits for exit.
func powerOff(ctx context.Context, e *nemesis.Env, id int32) error {
	st, err := e.Cluster.State(ctx, id)
	if err != nil {
		return err
	}
	if st.Paused {
		if err := e.Cluster.Resume(ctx, id); err != nil {
			return err
		}
	}
	if st.Running {
		return e.Kill(ctx, id)
	}
	return nil
}

// reportCuts keeps the cuts worth a history line: those that lost data and
// every partition of the workload topic.
func reportCuts(e *nemesis.Env, res []cutResult) []cutResult {
	out := []cutResult{}
	for _, r := range res {
		if r.cut() || strings.TrimSuffix(r.Partition, "-"+partitionSuffix(r.Partition)) == e.Topic {
			out = append(out, r)
		}
	}
	return out
}

func partitionSuffix(dir string) string {
	if i := strings.LastIndexByte(dir, '-'); i >= 0 {
		return dir[i+1:]
	}
	return ""
}

// Heal starts the brokers that Inject left down.
func (f *loseUnflushed) Heal(ctx context.Context, e *nemesis.Env) error {
	if len(f.nodes) == 0 {
		return nil
	}
	h, err := nemesis.NewFault(nemesis.Step{Fault: histories.FStart, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: f.nodes}})
	if err != nil {
		return err
	}
	_, _, err = h.Inject(ctx, e)
	return err
}

// logDirFiles are every log dir of node id: each has its own recovery
// point checkpoint, and a power cut hits them all. A backend without
// cluster.Disks has one, Files.
func logDirFiles(e *nemesis.Env, id int32) ([]cluster.LogFiles, error) {
	disks, ok := e.Cluster.(cluster.Disks)
	if !ok {
		f, err := e.Cluster.Files(id)
		return []cluster.LogFiles{f}, err
	}
	var out []cluster.LogFiles
	for i := range disks.LogDirs(id) {
		f, err := disks.DirFiles(id, i)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
