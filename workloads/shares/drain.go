package shares

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
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/workloads"
)

// Broker configs a share group runs by (workloads/share_config.go), with Kafka's
// defaults for when a broker does not report them.
const (
	lockConfig      = "group.share.record.lock.duration.ms"
	limitConfig     = "group.share.delivery.count.limit"
	resetConfig     = "share.auto.offset.reset"
	defaultLockMS   = 30000
	defaultLimit    = 5
	setupAttempts   = 20
	setupRetryDelay = 500 * time.Millisecond
)

// admin makes an admin client for the share group's setup and its
// start offsets.
func (g *group) admin() (*kadm.Client, *kgo.Client, error) {
	cl, err := kgo.NewClient(workloads.FranzCommon(g.cfg, g.env.Evidence, "kchaos-share-admin")...)
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl, nil
}

// setup reads the lock duration and delivery limit the brokers run
// with, and sets the group's share.auto.offset.reset to earliest before
// any member joins (share groups start at latest by default, KIP-932).
func (g *group) setup(ctx context.Context) error {
	adm, cl, err := g.admin()
	if err != nil {
		return err
	}
	defer cl.Close()
	g.lim = limits{lockMS: defaultLockMS, limit: defaultLimit}
	var last error
	for range setupAttempts {
		if last = g.setupOnce(ctx, adm, cl); last == nil {
			return nil
		}
		ctxsleep.Sleep(ctx, setupRetryDelay)
	}
	return fmt.Errorf("workload.shares: set up share group %s: %w", g.cfg.Shares.Group, last)
}

func (g *group) setupOnce(ctx context.Context, adm *kadm.Client, cl *kgo.Client) error {
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
			case c.Key == lockConfig:
				g.lim.lockMS = n
			case c.Key == limitConfig:
				g.lim.limit = int32(n)
			}
		}
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = g.cfg.Shares.Group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name = resetConfig
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
			return fmt.Errorf("%s=earliest on group %s: %w", resetConfig, r.ResourceName, err)
		}
	}
	return nil
}

// Drain runs after the final heal, before the final read: the
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
func (g *group) Drain(ctx context.Context, env workloads.KindEnv) error {
	g.env = env
	adm, cl, err := g.admin()
	if err != nil {
		return err
	}
	defer cl.Close()
	dctx, cancel := context.WithTimeout(ctx, g.cfg.Shares.Drain.Std())
	defer cancel()
	starts, ends := g.bounds(dctx, adm)
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
		missing := g.tally.missing(starts, spso, ends)
		if missing > 0 && time.Since(asked) >= drainAsk {
			asked = time.Now()
			spso, _, _ = g.startOffsets(dctx, adm)
			missing = g.tally.missing(starts, spso, ends)
		}
		drained = missing == 0
		return drained
	}
	if err := g.loops(dctx, done); err != nil {
		return err
	}
	return g.recordOffsets(ctx, adm, done())
}

// drainAsk is how often the drain asks for the group's start offsets.
const drainAsk = time.Second

// startOffsets is the group's share-partition start offsets on the
// workload's topic, and the partitions it did not report (with why).
func (g *group) startOffsets(ctx context.Context, adm *kadm.Client) (map[int32]int64, map[int32]string, error) {
	octx, cancel := context.WithTimeout(ctx, g.cfg.OpTimeout())
	defer cancel()
	got, err := adm.DescribeShareGroupOffsets(octx, g.cfg.Shares.Group)
	if err == nil {
		err = got.Error()
	}
	if err != nil {
		return nil, nil, err
	}
	offs, errs := map[int32]int64{}, map[int32]string{}
	for p := int32(0); p < int32(g.cfg.Partitions); p++ {
		o, ok := got[g.cfg.Shares.Group].Offsets.Lookup(g.cfg.Topic, p)
		switch {
		case !ok:
			errs[p] = "not reported"
		case o.Err != nil:
			errs[p] = workloads.ErrorName(o.Err)
		default:
			offs[p] = o.StartOffset
		}
	}
	return offs, errs, nil
}

// bounds is each partition's log start and end offsets at the
// drain's start (nil ends when they could not be had).
func (g *group) bounds(ctx context.Context, adm *kadm.Client) (map[int32]int64, map[int32]int64) {
	so, err1 := adm.ListStartOffsets(ctx, g.cfg.Topic)
	eo, err2 := adm.ListEndOffsets(ctx, g.cfg.Topic)
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

// recordOffsets records the group's share-partition start offsets
// (DescribeShareGroupOffsets) as a share-offsets op.
func (g *group) recordOffsets(ctx context.Context, adm *kadm.Client, drained bool) error {
	proc := g.env.Recorder.NewProcess()
	v := histories.ShareOffsetsValue{Group: g.cfg.Shares.Group, Topic: g.cfg.Topic}
	if _, err := g.env.Recorder.Invoke(proc, histories.FShareOffsets, v); err != nil {
		return err
	}
	offs, errs, err := g.startOffsets(ctx, adm)
	if err != nil {
		_, rerr := g.env.Recorder.Complete(proc, histories.Info, histories.FShareOffsets, v, workloads.ErrorName(err))
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
	_, rerr := g.env.Recorder.Complete(proc, histories.OK, histories.FShareOffsets, done, "")
	return rerr
}
