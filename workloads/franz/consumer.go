package franz

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// franzConsumer reads assigned partitions with a kgo direct consumer.
//
// Each Assign makes a fresh consuming client at exact offsets: positions
// then come only from the workload, never from state the old client kept
// (a partition kgo parked after OFFSET_OUT_OF_RANGE, say). Assigns are
// rare (start, resets), so the reconnect costs nothing that matters.
//
// ConsumeResetOffset(NoResetOffset()) makes kgo return OFFSET_OUT_OF_RANGE
// instead of silently resetting, so the workload resets by its own rule
// and records the assign. Truncation found through leader epochs (KIP-320)
// is reset by kgo itself and reported as *kgo.ErrDataLoss; the consumer
// passes its ResetTo up as a Reset, which the workload records too.
type franzConsumer struct {
	cfg       workloads.Config
	bootstrap []string
	id        int
	meta      *kgo.Client // for ListOffsets; never consumes
	adm       *kadm.Client
	mu        sync.Mutex
	cl        *kgo.Client // the consuming client, nil until Assign
	closeOnce sync.Once
}

// NewConsumer opens the metadata client; consuming starts at Assign.
func (franzDriver) NewConsumer(cfg workloads.Config, bootstrap []string, id int) (workloads.Consumer, error) {
	meta, err := kgo.NewClient(workloads.FranzCommon(cfg, bootstrap, workloads.ConsumerClientID(id)+"-meta")...)
	if err != nil {
		return nil, err
	}
	return &franzConsumer{cfg: cfg, bootstrap: bootstrap, id: id, meta: meta, adm: kadm.NewClient(meta)}, nil
}

// Offsets lists log start offsets (earliest) or high watermarks (latest).
func (c *franzConsumer) Offsets(ctx context.Context, partitions []int32, rule string) (map[int32]int64, error) {
	list := c.adm.ListStartOffsets
	switch {
	case rule == workloads.ResetLatest && histories.IsReadCommitted(c.cfg.Isolation):
		list = c.adm.ListCommittedOffsets // the last stable offsets
	case rule == workloads.ResetLatest:
		list = c.adm.ListEndOffsets
	}
	listed, err := list(ctx, c.cfg.Topic)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	var errs []error
	for _, p := range partitions {
		lo, ok := listed.Lookup(c.cfg.Topic, p)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("partition %d: not listed", p))
		case lo.Err != nil:
			errs = append(errs, lo.Err)
		default:
			out[p] = lo.Offset
		}
	}
	return out, errors.Join(errs...)
}

// Assign replaces the consuming client with one reading exactly offsets.
func (c *franzConsumer) Assign(_ context.Context, offsets map[int32]int64) error {
	at := map[int32]kgo.Offset{}
	for p, o := range offsets {
		at[p] = kgo.NewOffset().At(o)
	}
	opts := append(workloads.FranzCommon(c.cfg, c.bootstrap, workloads.ConsumerClientID(c.id)),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.cfg.Topic: at}),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.FetchIsolationLevel(franzIsolation(c.cfg.Isolation)),
		kgo.KeepControlRecords(), // markers move Fetch.Next; Poll drops them
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	c.setClient(cl)
	return nil
}

// Poll returns what kgo fetched, each record with its batch's leader epoch
// (kgo.Record.LeaderEpoch is the batch's partitionLeaderEpoch).
func (c *franzConsumer) Poll(ctx context.Context) (workloads.Fetch, error) {
	c.mu.Lock()
	cl := c.cl
	c.mu.Unlock()
	if cl == nil {
		return workloads.Fetch{}, errors.New("consumer not assigned")
	}
	return franzFetch(ctx, cl)
}

// franzFetch is one PollFetches of cl as a Fetch (the assigned consumer's
// and the group member's).
func franzFetch(ctx context.Context, cl *kgo.Client) (workloads.Fetch, error) {
	fs := cl.PollFetches(ctx)
	if fs.IsClientClosed() {
		return workloads.Fetch{}, kgo.ErrClientClosed
	}
	var f workloads.Fetch
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if p.Err != nil {
			var dl *kgo.ErrDataLoss
			switch {
			case p.Partition < 0 && workloads.Ended(ctx):
				// The injected "context ended" fetch: an empty poll.
			case errors.As(p.Err, &dl):
				if f.Resets == nil {
					f.Resets = map[int32]int64{}
				}
				f.Resets[dl.Partition] = dl.ResetTo
			default:
				f.Errors = append(f.Errors, workloads.PartitionError{Partition: p.Partition, Err: p.Err})
			}
		}
		if p.LogStartOffset >= 0 && p.Partition >= 0 {
			if f.LogStart == nil {
				f.LogStart = map[int32]int64{}
			}
			f.LogStart[p.Partition] = p.LogStartOffset
		}
		for _, r := range p.Records {
			if f.Next == nil {
				f.Next = map[int32]int64{}
			}
			f.Next[r.Partition] = max(f.Next[r.Partition], r.Offset+1)
			if r.Attrs.IsControl() {
				continue // a transaction marker: an offset, not a record
			}
			f.Records = append(f.Records, histories.Record{Partition: r.Partition, Offset: r.Offset,
				Value: string(r.Value), LeaderEpoch: r.LeaderEpoch})
		}
	})
	sort.SliceStable(f.Records, func(i, j int) bool { return f.Records[i].Partition < f.Records[j].Partition })
	return f, nil
}

// franzIsolation maps workload.isolation to kgo's.
func franzIsolation(level string) kgo.IsolationLevel {
	if histories.IsReadCommitted(level) {
		return kgo.ReadCommitted()
	}
	return kgo.ReadUncommitted()
}

// Close closes both clients.
func (c *franzConsumer) Close() {
	c.setClient(nil)
	c.closeOnce.Do(c.meta.Close)
}

// setClient makes cl the fetching client and closes the one before it.
func (c *franzConsumer) setClient(cl *kgo.Client) {
	c.mu.Lock()
	old := c.cl
	c.cl = cl
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
}
