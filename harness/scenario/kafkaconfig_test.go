package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestCompactionRefused: a cleanup policy that compacts, on the topic, on
// the brokers (the topic's default) or in a live set-config, is bad input
// naming the field, before any cluster: the checker models no log cleaner
// (a real run on a compacted topic had every keyless send refused with
// INVALID_RECORD: histories/testdata/real-compacted-keyless). delete, and
// a list without compact, pass.
func TestCompactionRefused(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // "" accepts
	}{
		{"topic compact", "topic: {configs: {cleanup.policy: compact}}", "topic.configs.cleanup.policy: \"compact\": kchaos's checker models no log compaction"},
		{"topic compact,delete", "topic: {configs: {cleanup.policy: \"delete, compact\"}}", "topic.configs.cleanup.policy: \"delete, compact\""},
		{"brokers' default", "cluster: {broker_config: {log.cleanup.policy: compact}}", "cluster.broker_config.log.cleanup.policy"},
		{"one broker's", "cluster: {per_broker: {1: {log.cleanup.policy: compact}}}", "cluster.per_broker.1.log.cleanup.policy"},
		{"live set-config", "nemesis: {steps: [{fault: set-config, config: {cleanup.policy: compact}}]}", "nemesis.steps[0].config.cleanup.policy"},
		{"topic delete", "topic: {configs: {cleanup.policy: delete}}", ""},
		{"a key named like it", "topic: {configs: {cleanup.policy: compacted}}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadText(t, "name: x\n"+tc.yaml+"\n")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Fatalf("error %v is not bad input (exit 254)", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %q", err, tc.want)
			}
		})
	}
}

// TestConsumerProtocolNotServed: members asking for the consumer protocol
// (KIP-848) of brokers whose coordinators are configured not to serve it
// are bad input naming the key, before any cluster: the client would fall
// back to classic (a real g1 did: checker's protocol note). Served, or
// asked for classic, they pass.
func TestConsumerProtocolNotServed(t *testing.T) {
	const group = "workload: {group: {id: g, members: 2, protocol: %s}}\ncluster: {kafka: 4.4.0, %s}"
	for _, tc := range []struct {
		name, protocol, cluster, want string
	}{
		{"brokers classic only", "consumer", "broker_config: {group.coordinator.rebalance.protocols: classic}",
			"cluster.broker_config.group.coordinator.rebalance.protocols: \"classic\" lacks consumer, which workload.group.protocol asks for"},
		{"one broker classic only", "consumer", "per_broker: {2: {group.coordinator.rebalance.protocols: \"classic, streams\"}}",
			"cluster.per_broker.2.group.coordinator.rebalance.protocols"},
		{"served", "consumer", "broker_config: {group.coordinator.rebalance.protocols: \"classic, consumer\"}", ""},
		{"classic members", "classic", "broker_config: {group.coordinator.rebalance.protocols: classic}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadText(t, "name: x\n"+fmt.Sprintf(group, tc.protocol, tc.cluster)+"\n")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var bad *BadInputError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want bad input naming %q", err, tc.want)
			}
		})
	}
}
