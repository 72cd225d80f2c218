package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
)

// Power-loss models (a lose-unflushed step's model).
const (
	// modelRecoveryPoint cuts every partition log back to its recovery
	// point: only what Kafka itself fsynced survives. The pessimistic
	// bound, and the default.
	modelRecoveryPoint = "recovery-point"
	// ModelWriteback also keeps what the kernel's page-cache writeback
	// would have written by the cut (Writeback).
	ModelWriteback = "writeback"
)

// Linux's writeback defaults: vm.dirty_expire_centisecs = 3000 and
// vm.dirty_writeback_centisecs = 500.
const (
	defaultDirtyExpire       = 30 * time.Second
	defaultWritebackInterval = 5 * time.Second
)

// writeback is a model of the kernel's page-cache writeback at a power
// cut. Linux writes a dirty page back once it has been dirty for
// dirty_expire, checked by the flusher thread every writeback interval.
// The kernel keeps that clock per file (the inode's dirtied_when: when it
// was first dirtied since it was last clean) and then writes all of the
// file's dirty pages, so a byte written at w reaches the disk no later
// than the first flusher pass after w + dirty_expire, that is by
// w + dirty_expire + interval whatever the flusher's phase. The model
// keeps, at a cut at T, every record batch written by T - dirty_expire -
// interval, and drops the batches after (the last window): a lower bound
// of what a real power cut keeps, more realistic than the recovery point.
//
// What "written at w" means (the write() into the page cache), and how w
// is bounded from the log alone: Kafka appends to a partition's log under
// the log's lock, one batch after another, and a leader stamps each batch
// it appends with its own clock before writing it when the topic's
// message.timestamp.type is LogAppendTime. So batch i was written before
// the next batch j was stamped: w_i <= stamp_j. The model takes as each
// batch's write time the smallest stamp of a later batch that the broker
// appended as leader (its leader epoch is the one the broker led at the
// cut: only the leader of an epoch appends batches of it), so it never
// believes a batch older than it is. Batches the broker wrote as a
// follower carry the leader's stamps, which a lagging follower writes
// long after; they are covered by the same rule, because a broker
// becomes leader only after it stopped fetching, so everything it wrote
// as a follower precedes its first stamp as leader.
//
// Limits (each errs towards cutting more, never less, except the last):
//   - Partitions the broker did not lead at the cut, or not of the
//     workload topic, and batches after the last leader-stamped batch (no
//     later stamp bounds them), are cut at the recovery point.
//   - CreateTime batches (the topic's default timestamp type) carry the
//     producer's clock and bound nothing: with them the model keeps no
//     more than the recovery point (the cut's details count them).
//   - The kernel may write more (memory pressure, dirty_background_ratio,
//     the per-file clock, an fsync of the whole file); the model ignores
//     all of that.
//   - The disk keeps what the kernel wrote back (no volatile write cache
//     lost at the cut) and the cut time and the stamps are one clock
//     (true for containers of one host; SSH hosts need synchronized
//     clocks, their skew adding to or taking from the window).
type writeback struct {
	DirtyExpire time.Duration `json:"dirty_expire"`
	Interval    time.Duration `json:"writeback_interval"`
}

// window is how long a write may stay only in the page cache.
func (w writeback) window() time.Duration { return w.DirtyExpire + w.Interval }

// noBound is "no later leader stamp": never written back by the model.
const noBound = math.MaxInt64

// writebackPoint is where the writeback model cuts one partition log:
// the base offset of the first batch that is neither below the recovery
// point rp nor bounded in time by cutoff (ms since the epoch), or the
// log's end when every batch is kept. batches are the partition's, in
// offset order, from the segment holding rp on; epoch is the leader epoch
// the broker led at the cut (-1: none, so nothing above rp is kept).
// noAppendTime counts the batches of that epoch at or above rp without a
// LogAppendTime stamp.
func writebackPoint(batches []Batch, rp int64, epoch int32, cutoff int64) (point int64, noAppendTime int) {
	bound := make([]int64, len(batches))
	next := int64(noBound)
	for i := len(batches) - 1; i >= 0; i-- {
		bound[i] = next
		b := batches[i]
		if epoch < 0 || b.LeaderEpoch != epoch {
			continue
		}
		if !b.AppendTime {
			if b.LastOffset >= rp {
				noAppendTime++
			}
			continue
		}
		next = min(next, b.MaxTimestamp)
	}
	if len(batches) == 0 {
		return rp, noAppendTime
	}
	for i, b := range batches {
		if b.LastOffset < rp || bound[i] <= cutoff {
			continue
		}
		return b.BaseOffset, noAppendTime
	}
	return batches[len(batches)-1].LastOffset + 1, noAppendTime
}

// cutWriteback cuts one partition dir by the writeback model: it reads
// the batches from the segment holding rp on, finds the writeback point
// and cuts there (CutLog), recording both points.
func cutWriteback(ctx context.Context, files cluster.LogFiles, dir string, rp int64, epoch int32, cutoff int64) (cutResult, error) {
	segs, _, err := segments(ctx, files, dir)
	if err != nil {
		return cutResult{Partition: dir, RecoveryPoint: rp}, err
	}
	var batches []Batch
	for i, s := range segs {
		if i+1 < len(segs) && segs[i+1].base <= rp {
			continue // wholly below the recovery point
		}
		b, _, err := scanFile(ctx, files, s.path)
		if err != nil {
			return cutResult{Partition: dir, RecoveryPoint: rp}, err
		}
		batches = append(batches, b...)
	}
	point, noAT := writebackPoint(batches, rp, epoch, cutoff)
	// Below rp only when a batch spans it unbounded: cut at rp then,
	// which drops that batch whole, as the recovery-point cut does.
	res, err := cutLog(ctx, files, dir, max(point, rp))
	wp := res.RecoveryPoint
	res.RecoveryPoint, res.WritebackPoint, res.NoAppendTime = rp, &wp, noAT
	return res, err
}

// cutLogDirWriteback simulates a power loss at time at on a dead broker's log
// dir by the writeback model: the workload topic's partitions that the
// broker led (led maps their dir name, "orders-0", to the epoch it led)
// keep what was written back by at - the window; every other partition
// is cut at its recovery point. As CutToRecoveryPoints otherwise.
func cutLogDirWriteback(ctx context.Context, files cluster.LogFiles, m writeback, at time.Time, led map[string]int32) ([]cutResult, error) {
	cutoff := at.Add(-m.window()).UnixMilli()
	return cutEach(ctx, files, func(dir string, rp int64) (cutResult, error) {
		epoch, ok := led[dir]
		if !ok {
			epoch = -1
		}
		return cutWriteback(ctx, files, dir, rp, epoch, cutoff)
	})
}

// cutEach reads the recovery points, cuts every live partition dir with
// cut, and removes the clean-shutdown marker so that Kafka recovers as
// after a crash. It skips the KRaft metadata log, which Raft manages and
// fsyncs itself and which the checkpoint does not cover. Results are
// sorted by partition.
func cutEach(ctx context.Context, files cluster.LogFiles, cut func(dir string, rp int64) (cutResult, error)) ([]cutResult, error) {
	rps := map[string]int64{}
	data, err := files.ReadFile(ctx, RecoveryPointFile)
	switch {
	case err == nil:
		if rps, err = ParseCheckpoint(data); err != nil {
			return nil, fmt.Errorf("%s: %w", RecoveryPointFile, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	entries, err := files.List(ctx, ".")
	if err != nil {
		return nil, err
	}
	var out []cutResult
	for _, e := range entries {
		if !e.Dir || !isPartitionDir(e.Name) {
			continue
		}
		r, err := cut(e.Name, rps[e.Name])
		if err != nil {
			return out, fmt.Errorf("%s: %w", e.Name, err)
		}
		out = append(out, r)
	}
	if err := files.Remove(ctx, cleanShutdownFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, err
	}
	return out, nil
}

// ledPartitions is, of the workload topic, each partition dir that broker
// id leads and the epoch it leads in, as the cluster reports it just
// before the cut. A stale answer errs safe: a partition it no longer
// leads, or leads in a later epoch, keeps only its recovery point.
func ledPartitions(ctx context.Context, e *nemesis.Env, id int32) map[string]int32 {
	out := map[string]int32{}
	parts, err := e.State().Describe(ctx, e.Topic)
	if err != nil {
		if e.Log != nil {
			e.Log.Warn("nemesis: writeback model: leaders unknown; cutting at the recovery points", "err", err)
		}
		return out
	}
	for _, p := range parts {
		if p.Leader == id {
			out[fmt.Sprintf("%s-%d", e.Topic, p.Partition)] = p.LeaderEpoch
		}
	}
	return out
}
