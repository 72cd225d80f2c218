package workloads

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
)

// ClusterView is what the final read and the observer need of the
// cluster's admin API. *admin.Client implements it; tests use fakes.
type ClusterView interface {
	Describe(ctx context.Context, topic string) ([]admin.PartitionState, error)
	DescribeFrom(ctx context.Context, broker int32, topic string) ([]admin.PartitionState, error)
	HighWatermark(ctx context.Context, leader int32, topic string, partition int32) (int64, error)
	// OffsetsAt is the partition's offsets at ListOffsets' special
	// timestamps (admin.EarliestTimestamp, ...) as its leader answers.
	OffsetsAt(ctx context.Context, leader int32, topic string, partition int32, timestamps ...int64) map[int64]int64
	ReplicaLogEndOffsets(ctx context.Context, topic string, partitions []int32, brokers []int32) map[int32]map[int32]int64
	// OpenTxns is the transactions the partition's leader holds open, with
	// their coordinators' view (KIP-664's DescribeProducers,
	// ListTransactions, DescribeTransactions).
	OpenTxns(ctx context.Context, topic string, partition int32) ([]histories.OpenTxn, error)
}

var _ ClusterView = (*admin.Client)(nil)

// PartitionRead is one partition's final read.
type PartitionRead struct {
	Partition int32
	// Complete: every offset from Start to End was read (recorded ok).
	Complete   bool
	Start, End int64
	Records    int
	Error      string // why it did not complete
	Took       time.Duration
}

// FinalReadResult is the final read of every partition.
type FinalReadResult struct{ Partitions []PartitionRead }

// Complete reports whether every partition's read completed.
func (r FinalReadResult) Complete() bool {
	for _, p := range r.Partitions {
		if !p.Complete {
			return false
		}
	}
	return len(r.Partitions) > 0
}

// FinalRead reads every partition of the topic from its log start to its
// end, concurrently, within cfg.FinalReadTimeout. Call it after the faults
// are healed. Each partition is its own final-read op on a fresh process,
// so that one partition that cannot finish (no leader) costs only its own
// read: it ends info, the others ok with their end_offsets.
//
// A partition's end is its high watermark when its read starts, asked of
// its leader once it has one; records above it are not part of the read
// (a send acked at or past that end was lost, if the watermark went back).
// A read_committed final read (Config.FinalReadIsolation) ends at the last
// stable offset instead, and its invoke says "isolation":"read_committed".
func (w *Workload) FinalRead(ctx context.Context, view ClusterView) (FinalReadResult, error) {
	// The kinds drain first (a share group: its members' last acks, and
	// the start offsets, come before the log is read), once.
	if w.drained.CompareAndSwap(false, true) {
		for _, k := range kindsOf[MemberKind](w) {
			if err := k.Drain(ctx, w.kindEnv()); err != nil {
				return FinalReadResult{}, err
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.FinalReadTimeout.Std())
	defer cancel()
	out := FinalReadResult{Partitions: make([]PartitionRead, w.cfg.Partitions)}
	errs := make([]error, w.cfg.Partitions)
	var wg sync.WaitGroup
	for p := 0; p < w.cfg.Partitions; p++ {
		wg.Add(1)
		go func(p int32) {
			defer wg.Done()
			out.Partitions[p], errs[p] = w.readPartition(ctx, view, p)
		}(int32(p))
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// readPartition records one partition's final-read op. The returned error
// is only a recorder error; a read that could not finish is info.
//
// A read_committed read records the partition's high watermark and last
// stable offset; when the last stable offset stays below the high
// watermark (a transaction holds it), it also records the transactions
// the leader holds open (OpenTxns, checked by the checker's txn-hanging),
// and a read_uncommitted read of the same partition follows, so that the
// committed records held back are judged too (every completed final read
// is evidence, docs/HISTORY.md).
func (w *Workload) readPartition(ctx context.Context, view ClusterView, p int32) (PartitionRead, error) {
	iso := w.cfg.FinalReadIsolation()
	res, hw, err := w.readPartitionAt(ctx, view, p, iso)
	if err != nil || !res.Complete || !histories.IsReadCommitted(iso) || res.End >= hw {
		return res, err
	}
	more, _, err := w.readPartitionAt(ctx, view, p, histories.ReadUncommitted)
	res.Records += more.Records
	res.Took += more.Took
	if !more.Complete {
		res.Error = "read_uncommitted read of the records held back: " + more.Error
	}
	return res, err
}

// readPartitionAt is one final-read op of partition p at isolation iso; it
// returns the high watermark it read (-1 if none).
func (w *Workload) readPartitionAt(ctx context.Context, view ClusterView, p int32, iso string) (PartitionRead, int64, error) {
	began := time.Now()
	res := PartitionRead{Partition: p, Start: -1, End: -1}
	pid := w.rec.NewProcess()
	from := int64(0)
	inv, err := w.rec.Invoke(pid, histories.FFinalRead, histories.ReadRequest{
		Topic: w.cfg.Topic, Partitions: []int32{p}, From: &from, Isolation: IsolationOf(iso)})
	if err != nil {
		return res, -1, err
	}
	tier := tierOffsets(ctx, view, w.cfg.Topic, p)
	invoked := time.Now()
	recs, start, end, hw, rerr := w.readRange(ctx, view, p, iso)
	res.Records, res.Start, res.End, res.Took = len(recs), start, end, time.Since(began)
	if recs == nil {
		recs = []histories.Record{}
	}
	key := histories.PartitionKey(p)
	v := histories.ReadResult{Topic: w.cfg.Topic, Records: recs}
	if rerr != nil {
		// info: the read did not finish. Its records are still real
		// observations (offset reuse can be seen in them), but it claims
		// no end.
		res.Error = rerr.Error()
		name := CauseTimeout
		if !errors.Is(rerr, context.DeadlineExceeded) {
			name = ErrorName(rerr)
		}
		_, err := w.rec.Complete(pid, histories.Info, histories.FFinalRead, v, name)
		return res, hw, err
	}
	res.Complete = true
	v.EndOffsets = map[string]int64{key: end}
	v.StartOffsets = map[string]int64{key: start}
	// Only a partition with data in a remote tier: elsewhere the local
	// log start is the log start and there is no remote offset.
	if remote, ok := tier[admin.LatestTieredTimestamp]; ok && remote >= 0 {
		v.HighestRemoteOffsets = map[string]int64{key: remote}
		if o, ok := tier[admin.EarliestLocalTimestamp]; ok {
			v.LocalStartOffsets = map[string]int64{key: o}
		}
	}
	if hw >= 0 {
		v.HighWatermarks = map[string]int64{key: hw}
	}
	if histories.IsReadCommitted(iso) {
		v.LastStableOffsets = map[string]int64{key: end}
		if end < hw {
			open, oerr := view.OpenTxns(ctx, w.cfg.Topic, p)
			// On the history's clock: the invoke's time plus the time
			// since Invoke returned, which lies within [invoke, complete]
			// of this op by construction. (The time since began, taken
			// before Invoke, overshot by however long the invoke waited
			// for the recorder, and fell after the completion in one t4
			// run, so the checker ignored it.)
			at := inv.Time + int64(time.Since(invoked))
			for i := range open {
				open[i].DescribedAt = at
			}
			if oerr != nil {
				v.OpenTxnsError = map[string]string{key: oerr.Error()}
			} else {
				v.OpenTxns = map[string][]histories.OpenTxn{key: open}
			}
		}
	}
	_, err = w.rec.Complete(pid, histories.OK, histories.FFinalRead, v, "")
	return res, hw, err
}

// readRange waits for a leader, takes the high watermark as the end (at
// read_committed: the last stable offset, see stableEnd), and reads
// [log start, end).
func (w *Workload) readRange(ctx context.Context, view ClusterView, p int32, iso string) ([]histories.Record, int64, int64, int64, error) {
	hw, err := endOffset(ctx, view, w.cfg.Topic, p)
	if err != nil {
		return nil, -1, -1, -1, err
	}
	end := hw
	ccfg := w.cfg
	ccfg.Isolation = iso
	c, err := w.drv.NewConsumer(ccfg, w.evidenceBootstrap(), 1000+int(p))
	if err != nil {
		return nil, -1, end, hw, err
	}
	defer c.Close()
	if histories.IsReadCommitted(ccfg.Isolation) {
		if end, err = w.stableEnd(ctx, c, p, hw); err != nil {
			return nil, -1, -1, hw, err
		}
		// The watermark may have moved while the read waited for the
		// last stable offset: take the one that goes with it.
		if now, err := tryEndOffset(ctx, view, w.cfg.Topic, p); err == nil && now >= end {
			hw = now
		}
	}
	start, err := startOffset(ctx, c, p)
	if err != nil {
		return nil, -1, end, hw, err
	}
	if start >= end {
		return nil, start, end, hw, nil
	}
	if err := c.Assign(ctx, map[int32]int64{p: start}); err != nil {
		return nil, start, end, hw, err
	}
	var recs []histories.Record
	pos := start
	lastErr := error(nil)
	for pos < end {
		if ctx.Err() != nil {
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			return recs, start, end, hw, fmt.Errorf("read %d..%d of [%d, %d): %w", start, pos, start, end, lastErr)
		}
		pctx, cancel := context.WithTimeout(ctx, PollWait)
		f, perr := c.Poll(pctx)
		cancel()
		for _, r := range f.Records {
			if r.Offset >= pos && r.Offset < end {
				recs = append(recs, r)
			}
			if r.Offset+1 > pos {
				pos = r.Offset + 1
			}
		}
		// Markers (and, at read_committed, aborted records) take offsets
		// that no record shows: step by the client's position.
		if next, ok := f.Next[p]; ok && next > pos {
			pos = next
		}
		if perr != nil {
			lastErr = perr
		}
		for _, pe := range f.Errors {
			lastErr = pe.Err
			if code, ok := KafkaCode(pe.Err); ok && code == codeOffsetOutOfRange {
				// The log start moved past our position (retention): go on
				// from the new start.
				if s, err := startOffset(ctx, c, p); err == nil && s > pos {
					pos = s
				}
				if err := c.Assign(ctx, map[int32]int64{p: pos}); err != nil {
					lastErr = err
				}
			}
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Offset < recs[j].Offset })
	return recs, start, end, hw, nil
}

// endOffset waits until the partition has a leader and asks it for the high
// watermark, retrying (leaders move while a cluster heals) until ctx ends.
func endOffset(ctx context.Context, view ClusterView, topic string, p int32) (int64, error) {
	var last error = errors.New("no leader")
	for {
		if hw, err := tryEndOffset(ctx, view, topic, p); err == nil {
			return hw, nil
		} else {
			last = err
		}
		if ctxsleep.Sleep(ctx, 250*time.Millisecond) != nil {
			return -1, fmt.Errorf("partition %d: high watermark: %w (last: %v)", p, ctx.Err(), last)
		}
	}
}

func tryEndOffset(ctx context.Context, view ClusterView, topic string, p int32) (int64, error) {
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	parts, err := view.Describe(dctx, topic)
	if err != nil {
		return -1, err
	}
	for _, st := range parts {
		if st.Partition != p {
			continue
		}
		if st.Leader < 0 {
			return -1, errors.New("no leader")
		}
		return view.HighWatermark(dctx, st.Leader, topic, p)
	}
	return -1, fmt.Errorf("partition %d not described", p)
}

// tierOffsets is partition p's local log start offset and highest offset
// in the remote tier, as its leader answers them now (none without a
// leader): what tells a final read's records served from the remote tier.
func tierOffsets(ctx context.Context, view ClusterView, topic string, p int32) map[int64]int64 {
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	parts, err := view.Describe(dctx, topic)
	if err != nil {
		return nil
	}
	for _, st := range parts {
		if st.Partition == p && st.Leader >= 0 {
			return view.OffsetsAt(dctx, st.Leader, topic, p, admin.EarliestLocalTimestamp, admin.LatestTieredTimestamp)
		}
	}
	return nil
}

// stableEnd is a read_committed final read's end: the partition's last
// stable offset (what ListOffsets answers at read_committed), which is
// all a read_committed reader can reach. A transaction still open holds
// it below the high watermark hw; once the producers are gone, the
// coordinator aborts such a transaction within its timeout (checked every
// 10 s by default), so the read waits, up to stableWait, for the LSO to
// reach hw, and otherwise reads to the LSO it has. Either way its
// end_offsets claim only what it read. Stepping by Fetch.Next (control
// records included) reaches an end that a marker precedes; the tail below
// an LSO held by an open transaction can still be an aborted record whose
// marker lies above it, which no read_committed fetch returns, hence the
// wait.
func (w *Workload) stableEnd(ctx context.Context, c Consumer, p int32, hw int64) (int64, error) {
	deadline := time.Now().Add(w.stableWait())
	var last error
	for {
		octx, cancel := context.WithTimeout(ctx, 2*time.Second)
		offs, err := c.Offsets(octx, []int32{p}, ResetLatest)
		cancel()
		if lso, ok := offs[p]; err == nil && ok {
			if lso >= hw || time.Now().After(deadline) {
				return lso, nil
			}
		} else {
			last = err
		}
		if ctxsleep.Sleep(ctx, 250*time.Millisecond) != nil {
			return -1, fmt.Errorf("partition %d: last stable offset: %w (last: %v)", p, ctx.Err(), last)
		}
	}
}

// stableWait is how long a read_committed final read waits for open
// transactions to end: twice their timeout plus the coordinator's 10 s
// check interval, and at most half the final read's bound.
func (w *Workload) stableWait() time.Duration {
	to := w.cfg.TxnTimeout()
	return min(2*to+10*time.Second, w.cfg.FinalReadTimeout.Std()/2)
}

// startOffset is the log start offset, retried until ctx ends.
func startOffset(ctx context.Context, c Consumer, p int32) (int64, error) {
	for {
		octx, cancel := context.WithTimeout(ctx, 2*time.Second)
		offs, err := c.Offsets(octx, []int32{p}, ResetEarliest)
		cancel()
		if o, ok := offs[p]; err == nil && ok {
			return o, nil
		}
		if ctxsleep.Sleep(ctx, 250*time.Millisecond) != nil {
			return -1, fmt.Errorf("partition %d: log start: %w (last: %v)", p, ctx.Err(), err)
		}
	}
}

// finalRead is New followed by Workload.FinalRead: the final read alone,
// for a harness that ran the workload with another Workload value.
func finalRead(ctx context.Context, cfg Config, bootstrap []string, rec Recorder, view ClusterView) (FinalReadResult, error) {
	w, err := New(cfg, bootstrap, rec)
	if err != nil {
		return FinalReadResult{}, err
	}
	return w.FinalRead(ctx, view)
}
