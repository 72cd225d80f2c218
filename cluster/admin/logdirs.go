package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// LogDirState is one log dir of a broker as the broker itself describes it
// (DescribeLogDirs): an offline dir carries Err (KAFKA_STORAGE_ERROR).
type LogDirState struct {
	Dir string
	Err error
	// Partitions are the replicas in the dir, "topic-partition", sorted;
	// Future those being moved into it (AlterReplicaLogDirs).
	Partitions, Future []string
}

// LogDirs describes broker's log dirs, sorted by path.
func (c *Client) LogDirs(ctx context.Context, broker int32) ([]LogDirState, error) {
	ds, err := c.adm.DescribeBrokerLogDirs(ctx, broker, nil)
	if err != nil {
		return nil, fmt.Errorf("describe log dirs of broker %d: %w", broker, err)
	}
	var out []LogDirState
	for _, d := range ds.Sorted() {
		s := LogDirState{Dir: d.Dir, Err: d.Err}
		for _, p := range d.Topics.Sorted() {
			name := fmt.Sprintf("%s-%d", p.Topic, p.Partition)
			if p.IsFuture {
				s.Future = append(s.Future, name)
			} else {
				s.Partitions = append(s.Partitions, name)
			}
		}
		slices.Sort(s.Partitions)
		slices.Sort(s.Future)
		out = append(out, s)
	}
	return out, nil
}

// moveReplicas moves every replica of topic to the log dir dir on each
// broker that hosts one (AlterReplicaLogDirs, as kafka-reassign-partitions
// --reassignment-json-file with log_dirs does), and waits, at most limit,
// until each broker describes them in dir with no move under way.
func (c *Client) moveReplicas(ctx context.Context, topic, dir string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// Describe asks the brokers in turn, and one whose metadata cache lags
	// may not know the topic yet (make test, 2026-12-02:
	// UNKNOWN_TOPIC_OR_PARTITION right after WaitLeaders had its leaders
	// from another broker).
	var parts []PartitionState
	err := whileTopicUnknown(ctx, func() (err error) {
		parts, err = c.Describe(ctx, topic)
		return err
	})
	if err != nil {
		return err
	}
	byBroker := map[int32][]int32{}
	for _, p := range parts {
		for _, r := range p.Replicas {
			byBroker[r] = append(byBroker[r], p.Partition)
		}
	}
	var last error
	sent := map[int32]bool{}
	for {
		pending := 0
		for b, ps := range byBroker {
			done, err := c.replicasIn(ctx, b, topic, ps, dir)
			if err != nil || !done {
				pending++
				last = err
				if err == nil && !sent[b] {
					sent[b] = true
					req := kadm.AlterReplicaLogDirsReq{}
					req.Add(dir, kadm.TopicsSet{topic: setOf(ps)})
					resp, err := c.adm.AlterBrokerReplicaLogDirs(ctx, b, req)
					last = err
					sent[b] = err == nil
					if err == nil {
						resp.Each(func(r kadm.AlterReplicaLogDirsResponse) {
							if r.Err != nil {
								sent[b] = false // ask again
								last = fmt.Errorf("broker %d: move %s-%d to %s: %w", b, r.Topic, r.Partition, dir, r.Err)
							}
						})
					}
				}
			}
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("move the replicas of %s to log dir %s: not done within %s (%v)", topic, dir, limit, errors.Join(last, ctx.Err()))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func setOf(ps []int32) map[int32]struct{} {
	m := map[int32]struct{}{}
	for _, p := range ps {
		m[p] = struct{}{}
	}
	return m
}

// replicasIn reports whether broker describes every partition ps of topic
// in dir, and none of them still moving.
func (c *Client) replicasIn(ctx context.Context, broker int32, topic string, ps []int32, dir string) (bool, error) {
	dirs, err := c.LogDirs(ctx, broker)
	if err != nil {
		return false, err
	}
	for _, p := range ps {
		name := fmt.Sprintf("%s-%d", topic, p)
		ok := false
		for _, d := range dirs {
			if slices.Contains(d.Future, name) {
				return false, nil
			}
			ok = ok || (d.Dir == dir && slices.Contains(d.Partitions, name))
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
