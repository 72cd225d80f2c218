package workloads

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestGroupProtocolsValidate: each rule of group.protocol, protocols and
// metadata_bytes, by its whole message.
func TestGroupProtocolsValidate(t *testing.T) {
	mixed := []string{"consumer", "classic", "classic"}
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		want []string // every problem, in order; none: valid
	}{
		{"ok mixed", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Members: 3, Protocols: mixed}) }, nil},
		{"ok mixed java", func(c *Config) {
			c.Driver, c.ClusterVersion, c.Group = DriverJava, "4.1.2", group(GroupConfig{ID: "g", Members: 3, Protocols: mixed})
		}, nil},
		{"ok all classic kafka-go", func(c *Config) {
			c.Driver, c.Group = DriverKafkaGo, group(GroupConfig{ID: "g", Members: 2, Protocols: []string{"classic", "classic"}})
		}, nil},
		{"ok metadata bytes", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 3, Protocols: mixed, MetadataBytes: 1 << 20})
		}, nil},
		{"ok metadata bytes kafka-go", func(c *Config) {
			c.Driver, c.Group = DriverKafkaGo, group(GroupConfig{ID: "g", MetadataBytes: MaxGroupMetadataBytes})
		}, nil},
		{"too few entries", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Members: 3, Protocols: mixed[:2]}) },
			[]string{"group.protocols: 2 entries for 3 members: want one per member"}},
		{"too many entries", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Members: 2, Protocols: mixed}) },
			[]string{"group.protocols: 3 entries for 2 members: want one per member"}},
		{"bad entry", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 2, Protocols: []string{"classic", "eager"}})
		}, []string{`group.protocols[1]: "eager": want classic or consumer (KIP-848, Kafka 4.0+)`}},
		{"both fields", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 3, Protocol: "classic", Protocols: mixed})
		}, []string{`group.protocol: "classic": omit it with group.protocols (member i runs protocols[i])`}},
		{"bad protocol", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Protocol: "eager"}) },
			[]string{`group.protocol: "eager": want classic or consumer (KIP-848, Kafka 4.0+)`}},
		{"session timeout with a consumer member", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 3, Protocols: mixed, SessionTimeout: Duration(20 * time.Second)})
		}, []string{"group.session_timeout: the consumer protocol (KIP-848) takes the session timeout from the broker " +
			"(group.consumer.session.timeout.ms in cluster.broker_config), not from the client; a member of group.protocols runs it"}},
		{"ok session timeout, every member classic", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 2, Protocols: []string{"classic", "classic"}, SessionTimeout: Duration(20 * time.Second)})
		}, nil},
		{"kafka-go with a consumer member", func(c *Config) {
			c.Driver, c.Group = DriverKafkaGo, group(GroupConfig{ID: "g", Members: 3, Protocols: mixed})
		}, []string{"group.protocols: kafka-go has no KIP-848 consumer protocol (its ConsumerGroup speaks JoinGroup/SyncGroup only, " +
			"no ConsumerGroupHeartbeat); use driver franz or protocol classic"}},
		{"negative metadata bytes", func(c *Config) { c.Group = group(GroupConfig{ID: "g", MetadataBytes: -1}) },
			[]string{"group.metadata_bytes: -1: want 0..4000000"}},
		{"huge metadata bytes", func(c *Config) { c.Group = group(GroupConfig{ID: "g", MetadataBytes: MaxGroupMetadataBytes + 1}) },
			[]string{"group.metadata_bytes: 4000001: want 0..4000000"}},
		{"metadata bytes without a classic member", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Protocol: "consumer", MetadataBytes: 10})
		}, []string{"group.metadata_bytes: 10: only a classic member sends subscription metadata, and no member runs classic (protocol)"}},
		{"metadata bytes, protocols all consumer", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 2, Protocols: []string{"consumer", "consumer"}, MetadataBytes: 10})
		}, []string{"group.metadata_bytes: 10: only a classic member sends subscription metadata, and no member runs classic (protocols)"}},
		{"metadata bytes java", func(c *Config) {
			c.Driver, c.ClusterVersion, c.Group = DriverJava, "4.1.2", group(GroupConfig{ID: "g", MetadataBytes: 10})
		},
			[]string{"group.metadata_bytes: 10: driver franz or kafka-go only (the Java driver's assignors are Kafka's own, and only a custom one sets user data)"}},
		{"fields without a group", func(c *Config) { c.Group.Protocols = mixed }, []string{"group.id: missing: the other group fields need a group id"}},
		{"metadata bytes without a group", func(c *Config) { c.Group.MetadataBytes = 5 }, []string{"group.id: missing: the other group fields need a group id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Defaults()
			tc.edit(&c)
			err := c.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestMemberProtocol: each member's protocol, and what the group as a
// whole is asked for, with protocol, with protocols and without a group.
func TestMemberProtocol(t *testing.T) {
	for _, tc := range []struct {
		name                string
		g                   GroupConfig
		members             []string // MemberProtocol(0..)
		classic, consumer   bool     // UsesProtocol
		label, describe, ls string
	}{
		{"default", group(GroupConfig{ID: "g"}), []string{"classic", "classic"}, true, false, "classic", "classic", "classic"},
		{"undefaulted", GroupConfig{ID: "g"}, []string{"classic"}, true, false, "classic", "classic", "classic"},
		{"consumer", group(GroupConfig{ID: "g", Protocol: "consumer"}), []string{"consumer", "consumer"}, false, true, "consumer", "consumer", "consumer"},
		{"mixed", group(GroupConfig{ID: "g", Members: 3, Protocols: []string{"consumer", "classic", "classic"}}),
			[]string{"consumer", "classic", "classic"}, true, true, GroupProtocolMixed, "consumer", "consumer,classic,classic"},
		{"protocols all classic", group(GroupConfig{ID: "g", Protocols: []string{"classic", "classic"}}),
			[]string{"classic", "classic"}, true, false, "classic", "classic", "classic,classic"},
		{"protocols all consumer", group(GroupConfig{ID: "g", Protocols: []string{"consumer", "consumer"}}),
			[]string{"consumer", "consumer"}, false, true, "consumer", "consumer", "consumer,consumer"},
		{"no group", GroupConfig{}, []string{"classic"}, false, false, "", "classic", "classic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			for i, want := range tc.members {
				if got := g.MemberProtocol(i); got != want {
					t.Errorf("MemberProtocol(%d) = %q, want %q", i, got, want)
				}
			}
			if got := g.UsesProtocol(histories.ProtocolClassic); got != tc.classic {
				t.Errorf("UsesProtocol(classic) = %v", got)
			}
			if got := g.UsesProtocol(histories.ProtocolConsumer); got != tc.consumer {
				t.Errorf("UsesProtocol(consumer) = %v", got)
			}
			if got := g.ProtocolLabel(); got != tc.label {
				t.Errorf("ProtocolLabel() = %q, want %q", got, tc.label)
			}
			if got := g.DescribeProtocol(); got != tc.describe {
				t.Errorf("DescribeProtocol() = %q, want %q", got, tc.describe)
			}
			if got := g.ProtocolList(); got != tc.ls {
				t.Errorf("ProtocolList() = %q, want %q", got, tc.ls)
			}
		})
	}
}

// TestGroupInfoProtocols: run.json records each member's protocol only
// when the scenario gives them; otherwise its group is as before, byte
// for byte.
func TestGroupInfoProtocols(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    GroupConfig
		want string
	}{
		{"one protocol", group(GroupConfig{ID: "g"}),
			`{"id":"g","members":2,"protocol":"classic","commit":"auto","delivery":"at-least-once"}`},
		{"mixed", group(GroupConfig{ID: "g", Members: 3, Protocols: []string{"consumer", "classic", "classic"}}),
			`{"id":"g","members":3,"protocol":"mixed","protocols":["consumer","classic","classic"],"commit":"auto","delivery":"at-least-once"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Group: tc.g}
			b, err := json.Marshal(c.GroupInfo())
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestSubscriptionUserData: n bytes of one repeated pattern.
func TestSubscriptionUserData(t *testing.T) {
	for _, n := range []int{0, 1, 29, 30, 31, 1000, MaxGroupMetadataBytes} {
		d := SubscriptionUserData(n)
		if len(d) != n {
			t.Fatalf("SubscriptionUserData(%d): %d bytes", n, len(d))
		}
		if n > 60 && !strings.HasPrefix(string(d[30:]), string(d[:30])) {
			t.Errorf("SubscriptionUserData(%d) does not repeat", n)
		}
	}
}
