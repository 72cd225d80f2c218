package admin

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
)

// ShareCoordinator returns the share coordinator of share group group's
// share-partition topic-partition: the broker leading the
// __share_group_state partition that holds its state (KIP-932). It asks
// FindCoordinator with key type SHARE and the key
// "<group>:<topic id>:<partition>", the topic id in Kafka's Uuid.toString
// form (base64url without padding), as kadm.FindShareCoordinators
// documents; Kafka 4.2 and later answer it.
func (c *Client) ShareCoordinator(ctx context.Context, group, topic string, partition int32) (int32, error) {
	adm := kadm.NewClient(c.cl)
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return -1, fmt.Errorf("share coordinator: list %s: %w", topic, err)
	}
	td, ok := tds[topic]
	if !ok || td.Err != nil {
		return -1, fmt.Errorf("share coordinator: topic %s: not found (%v)", topic, td.Err)
	}
	key := fmt.Sprintf("%s:%s:%d", group, base64.RawURLEncoding.EncodeToString(td.ID[:]), partition)
	r, ok := adm.FindShareCoordinators(ctx, key)[key]
	switch {
	case !ok:
		return -1, fmt.Errorf("share coordinator of %s: no answer", key)
	case r.Err != nil:
		return -1, fmt.Errorf("share coordinator of %s: %w", key, r.Err)
	}
	return r.NodeID, nil
}

// ShareStartOffset returns share group group's start offset on
// topic-partition (DescribeShareGroupOffsets, KIP-932): every record below
// it reached a final state. A partition the group has not started on is
// an error.
func (c *Client) ShareStartOffset(ctx context.Context, group, topic string, partition int32) (int64, error) {
	got, err := kadm.NewClient(c.cl).DescribeShareGroupOffsets(ctx, group)
	if err == nil {
		err = got.Error()
	}
	if err != nil {
		return -1, fmt.Errorf("share group %s offsets: %w", group, err)
	}
	o, ok := got[group].Offsets.Lookup(topic, partition)
	switch {
	case !ok:
		return -1, fmt.Errorf("share group %s: no start offset on %s-%d yet", group, topic, partition)
	case o.Err != nil:
		return -1, fmt.Errorf("share group %s on %s-%d: %w", group, topic, partition, o.Err)
	}
	return o.StartOffset, nil
}
