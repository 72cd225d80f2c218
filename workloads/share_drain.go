package workloads

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// Broker configs a share group runs by (share_config.go), with Kafka's
// defaults for when a broker does not report them.
const (
	shareLockConfig      = "group.share.record.lock.duration.ms"
	shareLimitConfig     = "group.share.delivery.count.limit"
	shareResetConfig     = "share.auto.offset.reset"
	defaultShareLockMS   = 30000
	defaultShareLimit    = 5
	shareSetupAttempts   = 20
	shareSetupRetryDelay = 500 * time.Millisecond
)

// shareAdmin makes an admin client for the share group's setup and its
// start offsets.
func (w *Workload) shareAdmin() (*kadm.Client, *kgo.Client, error) {
	cl, err := kgo.NewClient(FranzCommon(w.cfg, w.evidenceBootstrap(), "kchaos-share-admin")...)
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl, nil
}

// setupShares reads the lock duration and delivery limit the brokers run
// with, and sets the group's share.auto.offset.reset to earliest before
// any member joins (share groups start at latest by default, KIP-932).
func (w *Workload) setupShares(ctx context.Context) error {
	adm, cl, err := w.shareAdmin()
	if err != nil {
		return err
	}
	defer cl.Close()
	w.shareLim = shareLimits{lockMS: defaultShareLockMS, limit: defaultShareLimit}
	var last error
	for range shareSetupAttempts {
		if last = w.shareSetupOnce(ctx, adm, cl); last == nil {
			return nil
		}
		sleepCtx(ctx, shareSetupRetryDelay)
	}
	return fmt.Errorf("workload.shares: set up share group %s: %w", w.cfg.Shares.Group, last)
}

func (w *Workload) shareSetupOnce(ctx context.Context, adm *kadm.Client, cl *kgo.Client) error {
	// A broker's own configs (no broker id would answer the cluster-wide
	// dynamic defaults only, without server.properties).
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return err
	}
	if len(md.Brokers) == 0 {
		return fmt.Errorf("no brokers in the metadata")
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, md.Brokers[0].NodeID)
	if err != nil {
		return err
	}
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Value == nil {
				continue
			}
			n, perr := strconv.ParseInt(*c.Value, 10, 64)
			switch {
			case perr != nil:
			case c.Key == shareLockConfig:
				w.shareLim.lockMS = n
			case c.Key == shareLimitConfig:
				w.shareLim.limit = int32(n)
			}
		}
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = w.cfg.Shares.Group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name = shareResetConfig
	c.Op = kmsg.IncrementalAlterConfigOpSet
	c.Value = kmsg.StringPtr("earliest")
	res.Configs = append(res.Configs, c)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return fmt.Errorf("%s=earliest on group %s: %w", shareResetConfig, r.ResourceName, err)
		}
	}
	return nil
}

// DrainShares runs after the final heal, before the final read: the
// members (a fresh client in each slot) poll and ack until every record
// below the log end reached a final state, or workload.shares.drain
// passes; then the group's start offsets are recorded (share-offsets). It
// returns a recorder error only.
//
// A record is final for the drain when a member saw its accept or reject
// confirmed, or when the group's share-partition start offset passed it
// (Kafka holds it final: accepted, rejected or archived). Without the
// second, a record whose ack Kafka applied but whose answer the member
// never got (in flight at a coordinator kill or a leader's power cut:
// w2-w4, 11-29 records a cell) kept the drain waiting to its bound: Kafka
// never delivers a final record again, so no member could confirm it. The
// checker still judges such a record unknown (its ack's outcome is), so
// this ends the wait, not a verdict.
func (w *Workload) DrainShares(ctx context.Context) error {
	if !w.cfg.Shares.Enabled() || !w.shareDrained.CompareAndSwap(false, true) {
		return nil // no share group, or drained by an earlier final read
	}
	adm, cl, err := w.shareAdmin()
	if err != nil {
		return err
	}
	defer cl.Close()
	dctx, cancel := context.WithTimeout(ctx, w.cfg.Shares.Drain.Std())
	defer cancel()
	starts, ends := w.shareBounds(dctx, adm)
	var (
		mu      sync.Mutex
		drained bool
		spso    map[int32]int64
		asked   time.Time
	)
	done := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if drained || ends == nil {
			return drained
		}
		missing := w.shareTally.missing(starts, spso, ends)
		if missing > 0 && time.Since(asked) >= shareDrainAsk {
			asked = time.Now()
			spso, _, _ = w.shareStartOffsets(dctx, adm)
			missing = w.shareTally.missing(starts, spso, ends)
		}
		drained = missing == 0
		return drained
	}
	if err := w.shareLoops(dctx, done); err != nil {
		return err
	}
	return w.recordShareOffsets(ctx, adm, done())
}

// shareDrainAsk is how often the drain asks for the group's start offsets.
const shareDrainAsk = time.Second

// shareStartOffsets is the group's share-partition start offsets on the
// workload's topic, and the partitions it did not report (with why).
func (w *Workload) shareStartOffsets(ctx context.Context, adm *kadm.Client) (map[int32]int64, map[int32]string, error) {
	octx, cancel := context.WithTimeout(ctx, w.cfg.OpTimeout())
	defer cancel()
	got, err := adm.DescribeShareGroupOffsets(octx, w.cfg.Shares.Group)
	if err == nil {
		err = got.Error()
	}
	if err != nil {
		return nil, nil, err
	}
	offs, errs := map[int32]int64{}, map[int32]string{}
	for p := int32(0); p < int32(w.cfg.Partitions); p++ {
		o, ok := got[w.cfg.Shares.Group].Offsets.Lookup(w.cfg.Topic, p)
		switch {
		case !ok:
			errs[p] = "not reported"
		case o.Err != nil:
			errs[p] = ErrorName(o.Err)
		default:
			offs[p] = o.StartOffset
		}
	}
	return offs, errs, nil
}

// shareBounds is each partition's log start and end offsets at the
// drain's start (nil ends when they could not be had).
func (w *Workload) shareBounds(ctx context.Context, adm *kadm.Client) (map[int32]int64, map[int32]int64) {
	so, err1 := adm.ListStartOffsets(ctx, w.cfg.Topic)
	eo, err2 := adm.ListEndOffsets(ctx, w.cfg.Topic)
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	starts, ends := map[int32]int64{}, map[int32]int64{}
	so.Each(func(o kadm.ListedOffset) { starts[o.Partition] = o.Offset })
	eo.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			ends[o.Partition] = o.Offset
		}
	})
	return starts, ends
}

// recordShareOffsets records the group's share-partition start offsets
// (DescribeShareGroupOffsets) as a share-offsets op.
func (w *Workload) recordShareOffsets(ctx context.Context, adm *kadm.Client, drained bool) error {
	proc := w.rec.NewProcess()
	v := histories.ShareOffsetsValue{Group: w.cfg.Shares.Group, Topic: w.cfg.Topic}
	if _, err := w.rec.Invoke(proc, histories.FShareOffsets, v); err != nil {
		return err
	}
	offs, errs, err := w.shareStartOffsets(ctx, adm)
	if err != nil {
		_, rerr := w.rec.Complete(proc, histories.Info, histories.FShareOffsets, v, ErrorName(err))
		return rerr
	}
	done := v
	done.Drained = drained
	done.StartOffsets, done.Errors = map[string]int64{}, map[string]string{}
	for p, o := range offs {
		done.StartOffsets[histories.PartitionKey(p)] = o
	}
	for p, e := range errs {
		done.Errors[histories.PartitionKey(p)] = e
	}
	if len(done.Errors) == 0 {
		done.Errors = nil
	}
	_, rerr := w.rec.Complete(proc, histories.OK, histories.FShareOffsets, done, "")
	return rerr
}
