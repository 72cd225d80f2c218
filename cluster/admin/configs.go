package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// ConfigValue is one applied config.
type ConfigValue struct {
	Value string
	// Source is where the value came from, in the three kinds a
	// durability review tells apart: histories.ConfigSourceTopic,
	// ConfigSourceBroker (static or dynamic broker config) or
	// ConfigSourceDefault (Kafka's built-in default).
	Source string
}

// TopicConfigs returns every config of topic as the brokers apply it,
// with where each value came from: what the topic was created with, what
// it inherits from the brokers, and Kafka's defaults. It is the record of
// a topic's starting settings that does not depend on what kchaos asked
// for.
//
// A topic created a moment ago may be unknown to the broker asked (it
// applies the metadata log a little behind the controller): that answer,
// UNKNOWN_TOPIC_OR_PARTITION, is asked again for up to topicKnownWait.
func (c *Client) TopicConfigs(ctx context.Context, topic string) (map[string]ConfigValue, error) {
	var out map[string]ConfigValue
	err := whileTopicUnknown(ctx, func() error {
		resp, err := topicConfigsRequest(topic).RequestWith(ctx, c.cl)
		if err != nil {
			out = nil
			return fmt.Errorf("describe configs of %s: %w", topic, err)
		}
		out, err = parseTopicConfigs(topic, resp)
		return err
	})
	if err != nil && err == ctx.Err() {
		return nil, fmt.Errorf("describe configs of %s: %w", topic, err)
	}
	return out, err
}

// topicKnownWait bounds how long a request waits for the broker it asks
// to learn a topic just created (whileTopicUnknown).
const topicKnownWait = 10 * time.Second

// whileTopicUnknown calls ask again every 200 ms while it answers
// UNKNOWN_TOPIC_OR_PARTITION, for up to topicKnownWait: a broker applies
// the metadata log a little behind the controller, so a topic created a
// moment ago may be unknown to the broker asked. It returns ask's last
// error, or ctx's.
func whileTopicUnknown(ctx context.Context, ask func() error) error {
	deadline := time.Now().Add(topicKnownWait)
	for {
		err := ask()
		if !errors.Is(err, kerr.UnknownTopicOrPartition) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func topicConfigsRequest(topic string) *kmsg.DescribeConfigsRequest {
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeTopic
	r.ResourceName = topic
	req.Resources = append(req.Resources, r) // ConfigNames nil: all of them
	req.IncludeSynonyms = false
	return req
}

func parseTopicConfigs(topic string, resp *kmsg.DescribeConfigsResponse) (map[string]ConfigValue, error) {
	out := map[string]ConfigValue{}
	for _, r := range resp.Resources {
		if r.ResourceType != kmsg.ConfigResourceTypeTopic || r.ResourceName != topic {
			continue
		}
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return nil, fmt.Errorf("describe configs of %s: %w%s", topic, err, msg)
		}
		for _, cfg := range r.Configs {
			if cfg.IsSensitive || cfg.Value == nil {
				continue
			}
			out[cfg.Name] = ConfigValue{Value: *cfg.Value, Source: sourceOf(cfg.Source)}
		}
		return out, nil
	}
	return nil, fmt.Errorf("describe configs of %s: the topic is not in the response", topic)
}

func sourceOf(s kmsg.ConfigSource) string {
	switch s {
	case kmsg.ConfigSourceDynamicTopicConfig:
		return histories.ConfigSourceTopic
	case kmsg.ConfigSourceDynamicBrokerConfig, kmsg.ConfigSourceDynamicDefaultBrokerConfig, kmsg.ConfigSourceStaticBrokerConfig:
		return histories.ConfigSourceBroker
	}
	return histories.ConfigSourceDefault
}
