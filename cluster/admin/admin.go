// Package admin is kchaos's Kafka admin and observer client, on franz-go's
// kadm and kmsg. kafka-go lacks DescribeTopicPartitions (API key 75, Kafka
// 3.8+), the only request that reports ELR and LastKnownElr.
package admin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Client talks to a cluster's brokers.
type Client struct {
	cl  *kgo.Client
	adm *kadm.Client
}

// New connects to the brokers at bootstrap (host:port).
func New(bootstrap []string) (*Client, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrap...),
		kgo.RequestTimeoutOverhead(2*time.Second),
		kgo.RetryTimeout(3*time.Second),
		kgo.MetadataMinAge(100*time.Millisecond),
		kgo.DialTimeout(2*time.Second),
	)
	if err != nil {
		return nil, err
	}
	return wrap(cl), nil
}

func wrap(cl *kgo.Client) *Client { return &Client{cl: cl, adm: kadm.NewClient(cl)} }

// Close releases the connections.
func (c *Client) Close() { c.cl.Close() }

// kgo exposes the underlying franz-go client (for callers needing raw requests).
func (c *Client) kgo() *kgo.Client { return c.cl }

// LiveBrokers returns the ids of the brokers that are registered and
// unfenced: KRaft's Metadata response lists only those.
func (c *Client) LiveBrokers(ctx context.Context) ([]int32, error) {
	return c.liveBrokers(ctx, c.cl)
}

// LiveBrokersFrom is LiveBrokers answered by one broker (like DescribeFrom):
// the nemesis asks a broker it knows runs, rather than one the client's
// rotation picks, which may be dead (dial timeout) or frozen (read timeout).
func (c *Client) LiveBrokersFrom(ctx context.Context, broker int32) ([]int32, error) {
	return c.liveBrokers(ctx, c.cl.Broker(int(broker)))
}

func (c *Client) liveBrokers(ctx context.Context, via kmsg.Requestor) ([]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := req.RequestWith(ctx, via)
	if err != nil {
		return nil, err
	}
	out := make([]int32, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		out = append(out, b.NodeID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// ActiveController returns the id of the active KRaft controller, from
// DescribeQuorum on the metadata topic (the controllers' Raft leader).
func (c *Client) ActiveController(ctx context.Context) (int32, error) {
	q, err := c.Quorum(ctx)
	if err != nil {
		return -1, err
	}
	return q.LeaderID, nil
}

// TopicSpec is a topic to create.
type TopicSpec struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	// Assignment, when set, gives each partition's replica list (the first
	// is the preferred leader); it fixes Partitions and ReplicationFactor.
	Assignment [][]int32
	Configs    map[string]string
	// LogDir, when set, is the log dir (a log.dirs entry) every replica is
	// moved to after creation (MoveReplicas); CreateTopic returns once
	// they are all there.
	LogDir string
}

// CreateTopic creates a topic, with an explicit replica assignment when
// given, and waits until every partition has a leader (and, with LogDir,
// until every replica is in that log dir).
func (c *Client) CreateTopic(ctx context.Context, spec TopicSpec) error {
	req := createTopicsRequest(spec)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", spec.Name, err)
	}
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			msg := ""
			if rt.ErrorMessage != nil {
				msg = ": " + *rt.ErrorMessage
			}
			return fmt.Errorf("create topic %s: %w%s", spec.Name, err, msg)
		}
	}
	if err := c.waitLeaders(ctx, spec.Name, 30*time.Second); err != nil || spec.LogDir == "" {
		return err
	}
	return c.moveReplicas(ctx, spec.Name, spec.LogDir, 60*time.Second)
}

// createTopicsRequest builds the CreateTopics request of spec: an explicit
// replica assignment when given (partitions and replication then -1, as
// Kafka requires), configs in sorted order.
func createTopicsRequest(spec TopicSpec) *kmsg.CreateTopicsRequest {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = spec.Name
	if len(spec.Assignment) > 0 {
		t.NumPartitions, t.ReplicationFactor = -1, -1
		for p, replicas := range spec.Assignment {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition = int32(p)
			a.Replicas = replicas
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
	} else {
		t.NumPartitions, t.ReplicationFactor = spec.Partitions, spec.ReplicationFactor
	}
	keys := make([]string, 0, len(spec.Configs))
	for k := range spec.Configs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := spec.Configs[k]
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		cfg.Name, cfg.Value = k, &v
		t.Configs = append(t.Configs, cfg)
	}
	req.Topics = append(req.Topics, t)
	return req
}

// waitLeaders waits until every partition of topic has a leader.
func (c *Client) waitLeaders(ctx context.Context, topic string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var lastErr error
	for {
		parts, err := c.Describe(ctx, topic)
		if err == nil && len(parts) > 0 {
			ok := true
			for _, p := range parts {
				if p.Leader < 0 {
					ok = false
				}
			}
			if ok {
				return nil
			}
			lastErr = fmt.Errorf("partitions without a leader: %v", parts)
		} else if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topic %s: not every partition has a leader within %s: %v", topic, limit, lastErr)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// SetTopicConfig sets (value != nil) or deletes (nil) a topic config live.
func (c *Client) SetTopicConfig(ctx context.Context, topic, key string, value *string) error {
	op := kadm.SetConfig
	if value == nil {
		op = kadm.DeleteConfig
	}
	resps, err := c.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: op, Name: key, Value: value}}, topic)
	if err != nil {
		return fmt.Errorf("set %s on %s: %w", key, topic, err)
	}
	for _, r := range resps {
		if r.Err != nil {
			return fmt.Errorf("set %s on %s: %w %s", key, topic, r.Err, r.ErrMessage)
		}
	}
	return nil
}

// ElectLeaders triggers an election for the given partitions: preferred
// (unclean=false) or unclean (ElectLeaders type UNCLEAN, which may pick a
// replica outside the ISR).
func (c *Client) ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) error {
	how := kadm.ElectPreferredReplica
	if unclean {
		how = kadm.ElectLiveReplica
	}
	set := kadm.TopicsSet{}
	set.Add(topic, partitions...)
	res, err := c.adm.ElectLeaders(ctx, how, set)
	if err != nil {
		return fmt.Errorf("elect leaders of %s %v: %w", topic, partitions, err)
	}
	var errs []error
	for _, ps := range res {
		for p, r := range ps {
			// ELECTION_NOT_NEEDED: the partition already has the leader the
			// election would choose. Not a failure.
			if r.Err != nil && !errors.Is(r.Err, kerr.ElectionNotNeeded) {
				errs = append(errs, fmt.Errorf("%s-%d: %w %s", topic, p, r.Err, r.ErrMessage))
			}
		}
	}
	return errors.Join(errs...)
}

// ReorderReplicas sets a partition's replica list to replicas: the same
// brokers in another order, as kafka-reassign-partitions does with such a
// plan. No replica moves, so the controller applies it at once; the first
// replica becomes the preferred leader, which a preferred election (or
// the next one) then makes the leader.
func (c *Client) ReorderReplicas(ctx context.Context, topic string, partition int32, replicas []int32) error {
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign(topic, partition, replicas)
	resps, err := c.adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		return fmt.Errorf("reorder the replicas of %s-%d to %v: %w", topic, partition, replicas, err)
	}
	for _, r := range resps.Sorted() {
		if r.Err != nil {
			return fmt.Errorf("reorder the replicas of %s-%d to %v: %w %s", topic, partition, replicas, r.Err, r.ErrMessage)
		}
	}
	return nil
}

// ElectLeadersVia is ElectLeaders sent to one broker, which forwards it to
// the controller (KRaft): the nemesis names a broker it knows runs, since
// the one kgo would pick may be frozen or dead after a fault (a paused
// broker stays in kgo's view and times every request out).
func (c *Client) ElectLeadersVia(ctx context.Context, via int32, topic string, partitions []int32, unclean bool) error {
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = 0 // preferred
	if unclean {
		req.ElectionType = 1
	}
	req.TimeoutMillis = 10000
	t := kmsg.NewElectLeadersRequestTopic()
	t.Topic = topic
	t.Partitions = partitions
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, c.cl.Broker(int(via)))
	if err != nil {
		return fmt.Errorf("elect leaders of %s %v via broker %d: %w", topic, partitions, via, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("elect leaders of %s %v via broker %d: %w", topic, partitions, via, err)
	}
	var errs []error
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			// ELECTION_NOT_NEEDED: the partition already has the leader the
			// election would choose. Not a failure.
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil && !errors.Is(err, kerr.ElectionNotNeeded) {
				msg := ""
				if rp.ErrorMessage != nil {
					msg = *rp.ErrorMessage
				}
				errs = append(errs, fmt.Errorf("%s-%d: %w %s", rt.Topic, rp.Partition, err, msg))
			}
		}
	}
	return errors.Join(errs...)
}

// DeleteTopic deletes one topic (the SSH backend's run topic, on a cluster
// kchaos does not own, after the final read).
func (c *Client) DeleteTopic(ctx context.Context, name string) error {
	resp, err := c.adm.DeleteTopics(ctx, name)
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", name, err)
	}
	for _, r := range resp {
		if r.Err != nil {
			return fmt.Errorf("delete topic %s: %w", name, r.Err)
		}
	}
	return nil
}
