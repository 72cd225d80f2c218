package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// NewOnce connects a client whose requests are never retried: the
// metadata workload's. After a retry a definite refusal no longer proves
// the change was not made (a first attempt that timed out may have made
// it, and the retry is then refused with TOPIC_ALREADY_EXISTS), so each
// op is one request and its outcome is judged from that one answer.
// clientID names it to the brokers (and to the request proxy's rules).
func NewOnce(bootstrap []string, clientID string) (*Client, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrap...),
		kgo.ClientID(clientID),
		kgo.RequestRetries(0),
		kgo.RequestTimeoutOverhead(2*time.Second),
		kgo.RetryTimeout(time.Millisecond),
		kgo.MetadataMinAge(100*time.Millisecond),
		kgo.DialTimeout(2*time.Second),
	)
	if err != nil {
		return nil, err
	}
	return wrap(cl), nil
}

// metaTimeoutMS is the controller-side timeout of a metadata change.
const metaTimeoutMS = 5000

// MetaOutcome is an op's outcome from its error: ok without one, fail when
// Kafka answered with an error code other than REQUEST_TIMED_OUT (the
// change was refused or never reached an active controller), info for
// anything else (a timeout, a lost connection: it may have been made).
func MetaOutcome(err error) histories.Type {
	var ke *kerr.Error
	switch {
	case err == nil:
		return histories.OK
	case errors.As(err, &ke) && ke != kerr.RequestTimedOut:
		return histories.Fail
	}
	return histories.Info
}

// codeErr is a Kafka error code with the broker's message.
func codeErr(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w%s", err, message(msg))
}

// CreateTopicOnce creates topic with n partitions of rf replicas.
func (c *Client) CreateTopicOnce(ctx context.Context, topic string, n int32, rf int16) error {
	req := createTopicsRequest(TopicSpec{Name: topic, Partitions: n, ReplicationFactor: rf})
	req.TimeoutMillis = metaTimeoutMS
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return err
	}
	for _, t := range resp.Topics {
		if t.Topic == topic {
			return codeErr(t.ErrorCode, t.ErrorMessage)
		}
	}
	return fmt.Errorf("create topic %s: not in the response", topic)
}

// DeleteTopicOnce deletes topic.
func (c *Client) DeleteTopicOnce(ctx context.Context, topic string) error {
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = metaTimeoutMS
	t := kmsg.NewDeleteTopicsRequestTopic()
	t.Topic = &topic
	req.Topics = append(req.Topics, t)
	req.TopicNames = append(req.TopicNames, topic)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Topics {
		if r.Topic != nil && *r.Topic == topic {
			return codeErr(r.ErrorCode, r.ErrorMessage)
		}
	}
	return fmt.Errorf("delete topic %s: not in the response", topic)
}

// CreatePartitionsOnce raises topic's partition count to total.
func (c *Client) CreatePartitionsOnce(ctx context.Context, topic string, total int32) error {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis = metaTimeoutMS
	t := kmsg.NewCreatePartitionsRequestTopic()
	t.Topic, t.Count = topic, total
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Topics {
		if r.Topic == topic {
			return codeErr(r.ErrorCode, r.ErrorMessage)
		}
	}
	return fmt.Errorf("create partitions of %s: not in the response", topic)
}

// SetTopicConfigOnce sets one config of topic (IncrementalAlterConfigs, SET).
func (c *Client) SetTopicConfigOnce(ctx context.Context, topic, key, value string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Op, cfg.Value = key, kmsg.IncrementalAlterConfigOpSet, &value
	r.Configs = append(r.Configs, cfg)
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return err
	}
	for _, x := range resp.Resources {
		if x.ResourceName == topic {
			return codeErr(x.ErrorCode, x.ErrorMessage)
		}
	}
	return fmt.Errorf("alter configs of %s: not in the response", topic)
}

// MetadataFrom is what one broker knows of the topics whose names start
// with prefix: their partition counts (Metadata) and the topic-level
// values of keys (DescribeConfigs), both answered from that broker's own
// metadata image.
func (c *Client) MetadataFrom(ctx context.Context, broker int32, prefix string, keys []string) (map[string]histories.TopicMeta, error) {
	via := c.cl.Broker(int(broker))
	req := kmsg.NewPtrMetadataRequest() // Topics nil: all of them
	resp, err := req.RequestWith(ctx, via)
	if err != nil {
		return nil, err
	}
	out := map[string]histories.TopicMeta{}
	dc := kmsg.NewPtrDescribeConfigsRequest()
	for _, t := range resp.Topics {
		if t.Topic == nil || !strings.HasPrefix(*t.Topic, prefix) {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("metadata of %s from broker %d: %w", *t.Topic, broker, err)
		}
		out[*t.Topic] = histories.TopicMeta{Partitions: int32(len(t.Partitions))}
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName, r.ConfigNames = kmsg.ConfigResourceTypeTopic, *t.Topic, keys
		dc.Resources = append(dc.Resources, r)
	}
	if len(dc.Resources) == 0 || len(keys) == 0 {
		return out, nil
	}
	cresp, err := dc.RequestWith(ctx, via)
	if err != nil {
		return nil, fmt.Errorf("configs from broker %d: %w", broker, err)
	}
	for _, r := range cresp.Resources {
		m, ok := out[r.ResourceName]
		if !ok {
			continue
		}
		if err := codeErr(r.ErrorCode, r.ErrorMessage); err != nil {
			return nil, fmt.Errorf("configs of %s from broker %d: %w", r.ResourceName, broker, err)
		}
		for _, cfg := range r.Configs {
			if cfg.Value != nil && sourceOf(cfg.Source) == histories.ConfigSourceTopic {
				if m.Configs == nil {
					m.Configs = map[string]string{}
				}
				m.Configs[cfg.Name] = *cfg.Value
			}
		}
		out[r.ResourceName] = m
	}
	return out, nil
}
