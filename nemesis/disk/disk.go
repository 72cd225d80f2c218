package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis"
)

// The disk faults: one log dir of a broker (a JBOD broker has several,
// cluster.log_dirs) stops taking writes, as a failed or full disk does.
//
//   - disk-fail makes the dir and everything in it immutable (the backend's
//     cluster.Disks.SetImmutable, chattr +i): every write fails with EPERM,
//     appends through files Kafka already has open included, and so do new
//     segments and the checkpoints Kafka rewrites (the high watermark's
//     every 5 s). Kafka runs as root in the container, so permissions
//     would not stop it; the attribute does.
//   - disk-full fills a bounded dir (cluster.log_dir_size) with one file,
//     FillFile, to the last byte: the next write that needs a page fails
//     with ENOSPC.
//
// Kafka turns the IOException into a log dir failure (LogDirFailureChannel):
// it stops serving the dir's replicas, tells the controller (KIP-858), and
// keeps serving its other dirs; the leaders of those partitions drop the
// replica from the ISR. If the dir holds the metadata log (dir 0) the
// broker halts instead (ReplicaManager.handleLogDirFailure). Inject proves
// both sides before it returns: the file system refuses a probe write, and
// Kafka reports the dir offline (DescribeLogDirs answers
// KAFKA_STORAGE_ERROR for it) or, for dir 0, the broker has exited; else
// it fails, with what it saw.
//
// The heal (heal: disk) clears the attribute and removes the fill file,
// exactly what Inject did. Kafka never takes a failed dir back while it
// runs: the replicas return when the broker restarts (fault: restart).

// FillFile is the file disk-full writes in the dir's root (Kafka loads
// only folders there); ProbeFile the one Inject tries to write as proof.
const (
	FillFile  = "kchaos-fill"
	probeFile = "kchaos-probe"
)

// defaultDiskTimeout bounds a disk fault's wait for Kafka's reaction. Kafka
// notices at its next write to the dir: an append (a follower's fetch, a
// produce) at once, else the high-watermark checkpoint within
// replica.high.watermark.checkpoint.interval.ms (5 s), which covers only
// dirs that hold partitions.
const defaultDiskTimeout = 30 * time.Second

// LogDirReader is implemented by *admin.Client: a broker's own account of
// its log dirs.
type LogDirReader interface {
	LogDirs(ctx context.Context, broker int32) ([]admin.LogDirState, error)
}

var _ LogDirReader = (*admin.Client)(nil)

// The disk faults act on a broker's log dirs (cluster.Disks).
var (
	// A failed log dir stays offline in the broker until it restarts,
	// and what a full or throttled dir did to the replicas in it (moved,
	// offline) outlives the heal: no run follows one on its cluster.
	diskFailKind = nemesis.Kind{Name: histories.FDiskFail, Needs: cluster.NewCaps(cluster.CapDisk),
		New: func() nemesis.Params { return &DiskParams{} }, LeavesState: "fails a log dir (offline in the broker until it restarts)",
		Heal: diskHeal, Color: "#8b5a2b", LosesAcked: nemesis.Yes, MovesLeaders: nemesis.No, Draw: diskNotDrawn, Proof: diskProved}
	diskFullKind = nemesis.Kind{Name: histories.FDiskFull, Needs: cluster.NewCaps(cluster.CapDisk),
		New: func() nemesis.Params { return &DiskParams{} }, LeavesState: "fills a log dir (its replicas may go offline or move)",
		Heal: diskHeal, Color: "#b8860b", LosesAcked: nemesis.Yes, MovesLeaders: nemesis.No, Draw: diskNotDrawn, Proof: diskProved}
	// A restart also ends disk-slow: the broker starts in a fresh cgroup.
	diskSlowKind = nemesis.Kind{Name: histories.FDiskSlow, Needs: cluster.NewCaps(cluster.CapDisk),
		New: func() nemesis.Params { return &DiskSlowParams{} }, LeavesState: "throttles a log dir's device",
		Heal: diskHeal, UndoneBy: []string{histories.FRestart}, Color: "#a0785a", LosesAcked: nemesis.No, MovesLeaders: nemesis.No,
		Draw: diskNotDrawn, Proof: diskProved}
)

// The disk faults are never drawn: they leave state a heal does not undo
// (LeavesState), and need a dir chosen by hand. Each proves itself inside
// its Inject (a probe write refused, the dir reported offline; a timed
// direct write for disk-slow) and records the proof with the op.
var (
	diskNotDrawn = nemesis.NotDrawn
	diskProved   = "proves itself in Inject (probe write, dir offline), recorded with the op"
)

// diskHeal makes every log dir writable, removes every fill file and lifts
// every block I/O limit; before nodes start (a broker must not start on a
// frozen dir).
var diskHeal = &nemesis.HealKind{Name: histories.HealDisk, Rank: 3, Heal: func(ctx context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
	ids, err := healDisks(ctx, e)
	if len(ids) > 0 {
		d["disks_healed"] = ids
	}
	return ids, err
}}

// DiskParams are a disk-fail's or disk-full's.
type DiskParams struct {
	// Dir is the log dir: its index in the broker's log.dirs
	// (cluster.log_dirs); 0 is the first, which also holds the metadata
	// log (Kafka halts the broker when that one fails).
	Dir *int `yaml:"dir,omitempty"`
	// OfflineWithin bounds the wait for Kafka to report the dir offline
	// (default DefaultDiskTimeout).
	OfflineWithin nemesis.Duration `yaml:"timeout,omitempty"`
}

func (dp *DiskParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
	validateDir(p, st.Fault, dp.Dir, add)
}

func (dp *DiskParams) Build(st nemesis.Step) nemesis.Fault {
	return &diskFault{op: st.Fault, target: st.Target, dir: dirOrNone(dp.Dir), timeout: dp.OfflineWithin.Std()}
}

func validateDir(p, fault string, dir *int, add nemesis.AddFunc) {
	if dir == nil {
		add(p+".dir", "fault %s needs dir: the log dir's index in log.dirs (0 is the first, which holds the metadata log: Kafka halts the broker when it fails)", fault)
	} else if *dir < 0 {
		add(p+".dir", "must not be negative")
	}
}

// dirOrNone is -1 for a missing dir: Validate requires one, and Inject
// refuses a fault without.
func dirOrNone(dir *int) int {
	if dir == nil {
		return -1
	}
	return *dir
}

type diskFault struct {
	op      string // histories.FDiskFail, histories.FDiskFull, histories.FDiskSlow
	target  *nemesis.Target
	dir     int
	timeout time.Duration
	rate    int64   // disk-slow's bytes per second
	nodes   []int32 // what Inject changed, for Heal
}

func (f *diskFault) Name() string { return f.op }

func (f *diskFault) Spec() map[string]any {
	m := map[string]any{"target": f.target, "dir": f.dir}
	if f.op == histories.FDiskSlow {
		m["rate"] = cluster.FormatSize(f.rate)
	}
	return m
}

// diskProof is what a disk fault did to one broker and how it took effect.
type diskProof struct {
	Dir string `json:"dir"`
	// Immutable is how many entries disk-fail made immutable; Filled the
	// bytes disk-full wrote, FreeBytes what the file system had left.
	Immutable int    `json:"immutable,omitempty"`
	Filled    int64  `json:"filled_bytes,omitempty"`
	FreeBytes *int64 `json:"free_bytes,omitempty"`
	// Device and Limit are disk-slow's disk and bytes per second.
	Device string `json:"device,omitempty"`
	Limit  int64  `json:"limit_bytes_per_s,omitempty"`
	// Write is the file system's answer to a probe write into the dir
	// (disk-slow: how long a direct write of twice the limit took).
	Write string `json:"write"`
	// Partitions were in the dir before the fault, as the broker said.
	Partitions []string `json:"partitions"`
	// Kafka is the broker's reaction: "offline: <error>" from
	// DescribeLogDirs, or "halted" (the metadata log's dir failed);
	// OfflineAfterMS how long after the change it showed.
	Kafka          string `json:"kafka,omitempty"`
	OfflineAfterMS int64  `json:"offline_after_ms,omitempty"`
}

func disksOf(e *nemesis.Env) (cluster.Disks, error) {
	d, ok := e.Cluster.(cluster.Disks)
	if !ok {
		return nil, fmt.Errorf("the backend cannot fail disks (it does not implement cluster.Disks)")
	}
	return d, nil
}

// Inject fails (or fills) the dir on each target broker and waits for
// Kafka to take it offline. Details: the dir, and per broker a diskProof.
func (f *diskFault) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	if f.dir < 0 {
		return nil, nil, fmt.Errorf("%s needs dir: a log dir's index in log.dirs", f.op)
	}
	if f.op == histories.FDiskSlow && f.rate < minRate {
		return nil, nil, fmt.Errorf("disk-slow needs rate: at least %s a second", cluster.FormatSize(minRate))
	}
	disks, err := disksOf(e)
	if err != nil {
		return nil, nil, err
	}
	ids, err := e.Resolve(ctx, f.target)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		if err := f.check(disks, e, id); err != nil {
			return nil, nil, err
		}
	}
	details := map[string]any{"dir": f.dir}
	proofs := map[int32]*diskProof{}
	var errs []error
	begin := map[int32]time.Time{}
	for _, id := range ids {
		ld := disks.LogDirs(id)[f.dir]
		p := &diskProof{Dir: ld.Path, Partitions: []string{}}
		proofs[id] = p
		details[fmt.Sprint(id)] = p
		if st, ok := logDir(ctx, e, id, ld.Path); ok {
			p.Partitions = append(p.Partitions, st.Partitions...)
		}
		// Heal covers a broker even if the change failed half way.
		f.nodes = append(f.nodes, id)
		if err := f.apply(ctx, disks, id, p); err != nil {
			errs = append(errs, err)
			continue
		}
		begin[id] = time.Now()
		if err := f.probe(ctx, e, disks, id, p); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && f.op != histories.FDiskSlow {
		// A slow disk is no failed one: Kafka does not react by itself.
		errs = append(errs, f.awaitKafka(ctx, e, begin, proofs))
	}
	for id, p := range proofs {
		details[fmt.Sprint(id)] = *p // values, for the log lines
	}
	return f.nodes, details, errors.Join(errs...)
}

// check refuses a target that is no broker, or lacks the dir.
func (f *diskFault) check(disks cluster.Disks, e *nemesis.Env, id int32) error {
	if !slices.Contains(e.BrokerIDs(), id) {
		return fmt.Errorf("node %d is not a broker: %s acts on a broker's log dir", id, f.op)
	}
	dirs := disks.LogDirs(id)
	if f.dir >= len(dirs) {
		return fmt.Errorf("broker %d has no log dir %d: it has %d (cluster.log_dirs)", id, f.dir, len(dirs))
	}
	if f.op == histories.FDiskFull && dirs[f.dir].SizeBytes == 0 {
		return fmt.Errorf("broker %d: log dir %d (%s) shares the host's disk: disk-full fills only a bounded dir (set cluster.log_dir_size)", id, f.dir, dirs[f.dir].Path)
	}
	if f.op == histories.FDiskSlow && dirs[f.dir].SizeBytes != 0 {
		return fmt.Errorf("broker %d: log dir %d (%s) is bounded, a tmpfs: memory has no block I/O to slow down", id, f.dir, dirs[f.dir].Path)
	}
	return nil
}

func (f *diskFault) apply(ctx context.Context, disks cluster.Disks, id int32, p *diskProof) error {
	if f.op == histories.FDiskSlow {
		dev, err := disks.Throttle(ctx, id, f.dir, f.rate)
		p.Device, p.Limit = dev, f.rate
		return err
	}
	if f.op == histories.FDiskFail {
		n, err := disks.SetImmutable(ctx, id, f.dir, true)
		p.Immutable = n
		return err
	}
	n, err := disks.Fill(ctx, id, f.dir, FillFile)
	p.Filled = n
	if err != nil {
		return fmt.Errorf("broker %d: fill log dir %d: %w", id, f.dir, err)
	}
	free, _, err := disks.Usage(ctx, id, f.dir)
	p.FreeBytes = &free
	if err == nil && free != 0 {
		err = fmt.Errorf("broker %d: log dir %d still has %d bytes free after the fill", id, f.dir, free)
	}
	return err
}

// probe writes ProbeFile into the dir: it must fail, with EPERM for an
// immutable dir and ENOSPC for a full one.
func (f *diskFault) probe(ctx context.Context, e *nemesis.Env, disks cluster.Disks, id int32, p *diskProof) error {
	if f.op == histories.FDiskSlow {
		return f.probeSlow(ctx, e, disks, id, p)
	}
	files, err := disks.DirFiles(id, f.dir)
	if err != nil {
		return err
	}
	err = files.WriteFile(ctx, probeFile, make([]byte, 64<<10))
	if err == nil {
		p.Write = "accepted"
		_ = files.Remove(ctx, probeFile)
		return fmt.Errorf("broker %d: log dir %d still takes writes after %s", id, f.dir, f.op)
	}
	p.Write = err.Error()
	if f.op == histories.FDiskFull {
		// Creating the file took no block; its data did not fit.
		_ = files.Remove(ctx, probeFile)
		if !errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("broker %d: probe write into the full log dir %d: %w (want ENOSPC)", id, f.dir, err)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("broker %d: probe write into the immutable log dir %d: %w (want EPERM)", id, f.dir, err)
	}
	return nil
}

// awaitKafka waits until every broker reports the dir offline, or, for the
// metadata log's dir, has halted.
func (f *diskFault) awaitKafka(ctx context.Context, e *nemesis.Env, begin map[int32]time.Time, proofs map[int32]*diskProof) error {
	limit := f.timeout
	if limit <= 0 {
		limit = defaultDiskTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	pending := slices.Sorted(maps.Keys(begin))
	last := map[int32]string{}
	for {
		for _, id := range slices.Clone(pending) {
			p := proofs[id]
			if f.dir == 0 {
				if st, err := e.Cluster.State(ctx, id); err == nil && !st.Running {
					p.Kafka = fmt.Sprintf("halted (exit %d): the metadata log's dir failed", st.ExitCode)
				}
			}
			if p.Kafka == "" {
				if st, ok := logDir(ctx, e, id, p.Dir); ok && st.Err != nil {
					p.Kafka = "offline: " + st.Err.Error()
				} else if ok {
					last[id] = "online"
				}
			}
			if p.Kafka != "" {
				p.OfflineAfterMS = time.Since(begin[id]).Milliseconds()
				pending = slices.DeleteFunc(pending, func(x int32) bool { return x == id })
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if ctxsleep.Sleep(ctx, nemesis.PollInterval) != nil {
			var errs []error
			for _, id := range pending {
				errs = append(errs, fmt.Errorf("broker %d: Kafka did not report log dir %s offline within %s (it says %q; Kafka notices at its next write there, and a dir without partitions is written rarely)",
					id, proofs[id].Dir, limit, last[id]))
			}
			return errors.Join(errs...)
		}
	}
}

// logDir is broker id's own account of its log dir path.
func logDir(ctx context.Context, e *nemesis.Env, id int32, path string) (admin.LogDirState, bool) {
	r, ok := e.Admin.(LogDirReader)
	if !ok {
		return admin.LogDirState{}, false
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	dirs, err := r.LogDirs(rctx, id)
	if err != nil {
		return admin.LogDirState{}, false
	}
	for _, d := range dirs {
		if d.Dir == path {
			return d, true
		}
	}
	return admin.LogDirState{}, false
}

// Heal undoes what Inject did on the brokers it changed.
func (f *diskFault) Heal(ctx context.Context, e *nemesis.Env) error {
	disks, err := disksOf(e)
	if err != nil || len(f.nodes) == 0 {
		return nil
	}
	var errs []error
	for _, id := range f.nodes {
		if f.op == histories.FDiskSlow {
			_, err := unthrottle(ctx, disks, id)
			errs = append(errs, err)
			continue
		}
		_, err := healDir(ctx, disks, id, f.dir)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// healDir makes one log dir writable and removes the files the disk faults
// write; it reports whether it changed anything.
func healDir(ctx context.Context, disks cluster.Disks, id int32, dir int) (bool, error) {
	n, err := disks.SetImmutable(ctx, id, dir, false)
	if err != nil {
		return n > 0, err
	}
	files, err := disks.DirFiles(id, dir)
	if err != nil {
		return n > 0, err
	}
	changed := n > 0
	for _, name := range []string{FillFile, probeFile} {
		err := files.Remove(ctx, name)
		if err == nil {
			changed = true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return changed, err
		}
	}
	return changed, nil
}

// healDisks is heal disk over the whole run, from the disks' actual state:
// every log dir of every broker writable, every fill file gone, every
// block I/O limit lifted. It returns the brokers where it changed something.
func healDisks(ctx context.Context, e *nemesis.Env) ([]int32, error) {
	disks, ok := e.Cluster.(cluster.Disks)
	if !ok {
		return nil, nil
	}
	var ids []int32
	var errs []error
	for _, id := range e.BrokerIDs() {
		changed, err := unthrottle(ctx, disks, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("broker %d: %w", id, err))
		}
		for dir := range disks.LogDirs(id) {
			c, err := healDir(ctx, disks, id, dir)
			changed = changed || c
			if err != nil {
				errs = append(errs, fmt.Errorf("broker %d: log dir %d: %w", id, dir, err))
			}
		}
		if changed {
			ids = append(ids, id)
		}
	}
	return ids, errors.Join(errs...)
}

func (dp *DiskParams) CheckAgainst(p string, _ *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	checkDir(v, p, dp.Dir, add)
}

// checkDir refuses a disk fault's dir the brokers do not have.
func checkDir(v *nemesis.ScenarioView, p string, dir *int, add nemesis.AddFunc) {
	if dir != nil && v.OwnLogDirs && *dir >= v.LogDirs {
		add(p+".dir", "%d: the brokers have log dirs 0..%d (cluster.log_dirs: %d)", *dir, v.LogDirs-1, v.LogDirs)
	}
}
