package kafkago

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// kafkaGoConsumer reads assigned partitions with kafka.Client.Fetch from
// positions it keeps itself. kafka-go's Reader would hide what we must
// record: it resets silently on OFFSET_OUT_OF_RANGE and drops the record
// batch's partitionLeaderEpoch. Client.Fetch returns the raw record set,
// whose *protocol.RecordBatch values carry the epoch.
type kafkaGoConsumer struct {
	cfg    workloads.Config
	client *kafka.Client
	tr     *kafka.Transport
	pos    map[int32]int64
	once   sync.Once
}

// NewConsumer opens a client with its own transport.
func (kafkaGoDriver) NewConsumer(cfg workloads.Config, bootstrap []string, id int) (workloads.Consumer, error) {
	tr := kafkaGoTransport(cfg, workloads.ConsumerClientID(id))
	return &kafkaGoConsumer{cfg: cfg, tr: tr,
		client: &kafka.Client{Addr: kafka.TCP(bootstrap...), Transport: tr, Timeout: 10 * time.Second}}, nil
}

// Offsets lists log start offsets (earliest) or high watermarks (latest).
func (c *kafkaGoConsumer) Offsets(ctx context.Context, partitions []int32, rule string) (map[int32]int64, error) {
	reqs := make([]kafka.OffsetRequest, len(partitions))
	for i, p := range partitions {
		reqs[i] = kafka.FirstOffsetOf(int(p))
		if rule == workloads.ResetLatest {
			reqs[i] = kafka.LastOffsetOf(int(p))
		}
	}
	resp, err := c.client.ListOffsets(ctx, &kafka.ListOffsetsRequest{
		Topics: map[string][]kafka.OffsetRequest{c.cfg.Topic: reqs}})
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	var errs []error
	for _, po := range resp.Topics[c.cfg.Topic] {
		switch {
		case po.Error != nil:
			errs = append(errs, po.Error)
		case rule == workloads.ResetLatest:
			out[int32(po.Partition)] = po.LastOffset
		default:
			out[int32(po.Partition)] = po.FirstOffset
		}
	}
	return out, errors.Join(errs...)
}

// Committed reads the group's committed offsets of partitions from its
// coordinator (kafka-go routes a group request there); -1: none.
func (c *kafkaGoConsumer) Committed(ctx context.Context, group string, partitions []int32) (map[int32]int64, error) {
	ps := make([]int, len(partitions))
	for i, p := range partitions {
		ps[i] = int(p)
	}
	resp, err := c.client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{c.cfg.Topic: ps}})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	out := map[int32]int64{}
	var errs []error
	for _, p := range resp.Topics[c.cfg.Topic] {
		if p.Error != nil {
			errs = append(errs, p.Error)
			continue
		}
		out[int32(p.Partition)] = p.CommittedOffset
	}
	if len(errs) == 0 && len(out) != len(partitions) {
		errs = append(errs, fmt.Errorf("offset fetch answered for %d of %d partitions", len(out), len(partitions)))
	}
	return out, errors.Join(errs...)
}

// Assign sets the positions.
func (c *kafkaGoConsumer) Assign(_ context.Context, offsets map[int32]int64) error {
	c.pos = make(map[int32]int64, len(offsets))
	for p, o := range offsets {
		c.pos[p] = o
	}
	return nil
}

// Poll fetches every assigned partition concurrently (kafka-go's Fetch
// takes one partition) and advances the positions past what it returns.
func (c *kafkaGoConsumer) Poll(ctx context.Context) (workloads.Fetch, error) {
	if c.pos == nil {
		return workloads.Fetch{}, errors.New("consumer not assigned")
	}
	parts := slices.Sorted(maps.Keys(c.pos))
	type result struct {
		recs     []histories.Record
		logStart int64
		err      error
	}
	res := make([]result, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func(i int, p int32, from int64) {
			defer wg.Done()
			res[i].recs, res[i].logStart, res[i].err = c.fetch(ctx, p, from)
		}(i, p, c.pos[p])
	}
	wg.Wait()
	var f workloads.Fetch
	for i, p := range parts {
		r := res[i]
		if r.err != nil && !workloads.Ended(ctx) {
			f.Errors = append(f.Errors, workloads.PartitionError{Partition: p, Err: r.err})
		}
		if r.logStart >= 0 {
			if f.LogStart == nil {
				f.LogStart = map[int32]int64{}
			}
			f.LogStart[p] = r.logStart
		}
		for _, rec := range r.recs {
			f.Records = append(f.Records, rec)
			c.pos[p] = rec.Offset + 1
		}
	}
	return f, nil
}

// fetch reads one partition from offset from.
func (c *kafkaGoConsumer) fetch(ctx context.Context, p int32, from int64) ([]histories.Record, int64, error) {
	wait := 500 * time.Millisecond
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = max(time.Until(dl), 10*time.Millisecond)
	}
	resp, err := c.client.Fetch(ctx, &kafka.FetchRequest{Topic: c.cfg.Topic, Partition: int(p),
		Offset: from, MinBytes: 1, MaxBytes: 4 << 20, MaxWait: wait})
	if err != nil {
		return nil, -1, err
	}
	recs, rerr := readBatches(resp.Records, p, from)
	if resp.Error != nil {
		return recs, resp.LogStartOffset, resp.Error
	}
	return recs, resp.LogStartOffset, rerr
}

// readBatches decodes a fetched record set, taking each record's leader
// epoch from its batch (v2 batches; older message sets have none: -1) and
// skipping control batches and records before from (a fetch returns whole
// batches, which may begin before the requested offset).
func readBatches(rr kafka.RecordReader, p int32, from int64) ([]histories.Record, error) {
	batches := []protocol.RecordReader{rr}
	if rs, ok := rr.(*protocol.RecordStream); ok {
		batches = rs.Records
	}
	var out []histories.Record
	for _, b := range batches {
		epoch := int32(-1)
		switch bb := b.(type) {
		case *protocol.ControlBatch:
			continue
		case *protocol.RecordBatch:
			epoch = bb.PartitionLeaderEpoch
		}
		for {
			r, err := b.ReadRecord()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return out, err
			}
			v, verr := protocol.ReadAll(r.Value)
			closeBytes(r.Key)
			closeBytes(r.Value)
			if verr != nil {
				return out, verr
			}
			if r.Offset < from {
				continue
			}
			out = append(out, histories.Record{Partition: p, Offset: r.Offset, Value: string(v), LeaderEpoch: epoch})
		}
	}
	return out, nil
}

func closeBytes(b protocol.Bytes) {
	if b != nil {
		_ = b.Close()
	}
}

// Close releases the client's connections.
func (c *kafkaGoConsumer) Close() { c.once.Do(c.tr.CloseIdleConnections) }
