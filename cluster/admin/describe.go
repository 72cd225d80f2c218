package admin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// PartitionState is what the controller's metadata says of one partition.
type PartitionState struct {
	Topic        string
	Partition    int32
	Leader       int32 // -1: no leader (offline)
	LeaderEpoch  int32
	Replicas     []int32
	ISR          []int32
	ELR          []int32
	LastKnownELR []int32
	Offline      []int32
}

// Describe returns every partition of topic, through DescribeTopicPartitions
// (Kafka 3.8+), which unlike Metadata reports ELR and LastKnownElr.
func (c *Client) Describe(ctx context.Context, topic string) ([]PartitionState, error) {
	return c.describe(ctx, topic, c.cl)
}

// DescribeFrom is Describe answered by one broker, from its metadata cache.
// Each broker's cache only moves forward, but brokers lag each other by
// different amounts (a broker just unpaused answers from a stale cache):
// an observer that asks the same broker every time sees no spurious ISR
// changes from switching between brokers, as Describe's rotation does.
func (c *Client) DescribeFrom(ctx context.Context, broker int32, topic string) ([]PartitionState, error) {
	return c.describe(ctx, topic, c.cl.Broker(int(broker)))
}

func (c *Client) describe(ctx context.Context, topic string, via kmsg.Requestor) ([]PartitionState, error) {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.ResponsePartitionLimit = 2000
	t := kmsg.NewDescribeTopicPartitionsRequestTopic()
	t.Topic = topic
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, via)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", topic, err)
	}
	var out []PartitionState
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			return nil, fmt.Errorf("describe %s: %w", topic, err)
		}
		for _, p := range rt.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil && !errors.Is(err, kerr.LeaderNotAvailable) {
				return nil, fmt.Errorf("describe %s-%d: %w", topic, p.Partition, err)
			}
			out = append(out, PartitionState{
				Topic: topic, Partition: p.Partition, Leader: p.LeaderID, LeaderEpoch: p.LeaderEpoch,
				Replicas: sorted(p.Replicas, false), ISR: sorted(p.ISR, true),
				ELR: sorted(p.EligibleLeaderReplicas, true), LastKnownELR: sorted(p.LastKnownELR, true),
				Offline: sorted(p.OfflineReplicas, true),
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out, nil
}

// sorted copies ids, never returning nil (so JSON shows []), and sorts them
// unless the order means something (a replica list's order does).
func sorted(ids []int32, sortIt bool) []int32 {
	out := append([]int32{}, ids...)
	if sortIt {
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	}
	return out
}

// debugReplicaID is ListOffsetsRequest.DEBUGGING_REPLICA_ID: a ListOffsets
// with it may be served by a follower, and (not being from a consumer)
// answers "latest" with the replica's own log end offset rather than the
// high watermark.
const debugReplicaID = -2

// offsets of one partition on one broker.
type offsets struct {
	LogEnd int64
	Err    error
}

// ReplicaLogEndOffsets asks each broker for its own log end offset of every
// given partition, leader or follower. Brokers that do not answer are
// missing from the result for that partition.
func (c *Client) ReplicaLogEndOffsets(ctx context.Context, topic string, partitions []int32, brokers []int32) map[int32]map[int32]int64 {
	out := map[int32]map[int32]int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, b := range brokers {
		wg.Add(1)
		go func(b int32) {
			defer wg.Done()
			leo, err := c.listOffsets(ctx, b, topic, partitions, debugReplicaID)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for p, o := range leo {
				if out[p] == nil {
					out[p] = map[int32]int64{}
				}
				out[p][b] = o
			}
		}(b)
	}
	wg.Wait()
	return out
}

// HighWatermark asks the leader broker for a partition's high watermark
// (ListOffsets latest, as a consumer, read-uncommitted).
func (c *Client) HighWatermark(ctx context.Context, leader int32, topic string, partition int32) (int64, error) {
	return c.latestOffset(ctx, leader, topic, partition, 0)
}

// LastStableOffset asks the partition's leader for its last stable offset
// (ListOffsets at read_committed): what a read_committed reader can reach.
func (c *Client) LastStableOffset(ctx context.Context, leader int32, topic string, partition int32) (int64, error) {
	return c.latestOffset(ctx, leader, topic, partition, 1)
}

// latestOffset is one partition's latest offset from its leader, as a
// consumer at the isolation level (0 read_uncommitted: the high
// watermark; 1 read_committed: the last stable offset).
func (c *Client) latestOffset(ctx context.Context, leader int32, topic string, partition int32, isolation int8) (int64, error) {
	req := listOffsetsRequest(topic, []int32{partition}, -1)
	req.IsolationLevel = isolation
	resp, err := req.RequestWith(ctx, c.cl.Broker(int(leader)))
	if err != nil {
		return -1, err
	}
	m, err := parseListOffsets(topic, leader, resp)
	if err != nil {
		return -1, err
	}
	off, ok := m[partition]
	if !ok {
		return -1, fmt.Errorf("%s-%d: no offset from broker %d", topic, partition, leader)
	}
	return off, nil
}

func (c *Client) listOffsets(ctx context.Context, broker int32, topic string, partitions []int32, replicaID int32) (map[int32]int64, error) {
	resp, err := listOffsetsRequest(topic, partitions, replicaID).RequestWith(ctx, c.cl.Broker(int(broker)))
	if err != nil {
		return nil, err
	}
	return parseListOffsets(topic, broker, resp)
}

// listOffsetsRequest asks for the latest offset of each partition: the
// high watermark for a consumer's replica id (-1), a replica's own log end
// offset for debugReplicaID.
func listOffsetsRequest(topic string, partitions []int32, replicaID int32) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = replicaID
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = topic
	for _, p := range partitions {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.CurrentLeaderEpoch = -1
		rp.Timestamp = -1 // latest
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	return req
}

// parseListOffsets returns each answered partition's offset; partitions
// with an error are left out, and only when none answered is it an error.
func parseListOffsets(topic string, broker int32, resp *kmsg.ListOffsetsResponse) (map[int32]int64, error) {
	out := map[int32]int64{}
	var errs []error
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				errs = append(errs, fmt.Errorf("%s-%d on %d: %w", topic, p.Partition, broker, err))
				continue
			}
			out[p.Partition] = p.Offset
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// ListOffsets special timestamps kchaos asks beyond latest (-1): the log
// start offset, the local log start offset (KIP-405: of a tiered
// partition, the first offset still on the leader's disk; else the log
// start) and the highest offset in remote storage (KIP-1005, Kafka 3.9+:
// -1 when nothing is tiered).
const (
	EarliestTimestamp      int64 = -2
	EarliestLocalTimestamp int64 = -4
	LatestTieredTimestamp  int64 = -5
)

// OffsetsAt asks the leader broker for the partition's offset at each of
// timestamps (one ListOffsets each: Kafka refuses a partition twice in
// one request), as a consumer; an offset it did not answer is left out.
func (c *Client) OffsetsAt(ctx context.Context, leader int32, topic string, partition int32, timestamps ...int64) map[int64]int64 {
	out := map[int64]int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, ts := range timestamps {
		wg.Add(1)
		go func(ts int64) {
			defer wg.Done()
			req := listOffsetsRequest(topic, []int32{partition}, -1)
			req.Topics[0].Partitions[0].Timestamp = ts
			resp, err := req.RequestWith(ctx, c.cl.Broker(int(leader)))
			if err != nil {
				return
			}
			m, err := parseListOffsets(topic, leader, resp)
			if o, ok := m[partition]; err == nil && ok {
				mu.Lock()
				out[ts] = o
				mu.Unlock()
			}
		}(ts)
	}
	wg.Wait()
	return out
}
