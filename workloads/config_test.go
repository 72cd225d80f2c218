package workloads

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	yamlv3 "gopkg.in/yaml.v3"
)

func TestConfigDefaults(t *testing.T) {
	var c Config
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	want := Config{Driver: DriverFranz, Topic: "kchaos", Partitions: 1, Producers: 1, Acks: AcksAll,
		RequestTimeout: Duration(5 * time.Second), MaxInFlight: 1, Partitioning: RoundRobin,
		OffsetReset: ResetEarliest, Isolation: DefaultIsolation, Duration: Duration(time.Minute), FinalReadTimeout: Duration(time.Minute)}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
	if c.Pipelined() || c.RetriesEnabled() {
		t.Errorf("defaults must be one op in flight, no retries")
	}
	if pi := c.ProducerInfo(); pi.Driver != DriverFranz || pi.Acks != "all" || pi.Idempotent || pi.Retries != 0 {
		t.Errorf("producer info %+v", pi)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Config)
		paths []string // every field path the error must name, in order
	}{
		{"ok franz idempotent", func(c *Config) { c.Idempotent, c.Retries = true, 3 }, nil},
		{"ok kafka-go pipelined by key", func(c *Config) {
			c.Driver, c.MaxInFlight, c.Partitioning, c.Keys, c.Partitions, c.Consumers = "kafka-go", 32, ByKey, 8, 3, 3
		}, nil},
		{"keys without key partitioning", func(c *Config) { c.Keys = 8 }, []string{"keys"}},
		{"alias franz-go", func(c *Config) { c.Driver = "franz-go" }, nil},
		{"acks -1 is all", func(c *Config) { c.Acks = "-1" }, nil},
		{"unknown driver", func(c *Config) { c.Driver = "sarama" }, []string{"driver"}},
		{"bad topic", func(c *Config) { c.Topic = "a/b" }, []string{"topic"}},
		{"bad acks", func(c *Config) { c.Acks = "2" }, []string{"acks"}},
		{"negative retries", func(c *Config) { c.Retries = -1 }, []string{"retries"}},
		{"idempotent without retries", func(c *Config) { c.Idempotent = true }, []string{"idempotent"}},
		{"idempotent with acks=1", func(c *Config) { c.Idempotent, c.Retries, c.Acks = true, 1, AcksLeader }, []string{"idempotent"}},
		{"kafka-go refuses idempotent", func(c *Config) { c.Driver, c.Idempotent, c.Retries = DriverKafkaGo, true, 2 }, []string{"idempotent"}},
		{"tiny request timeout", func(c *Config) { c.RequestTimeout = Duration(time.Millisecond) }, []string{"request_timeout"}},
		{"max in flight", func(c *Config) { c.MaxInFlight = 5000 }, []string{"max_in_flight"}},
		{"partitioning", func(c *Config) { c.Partitioning = "hash" }, []string{"partitioning"}},
		{"rate", func(c *Config) { c.Rate = -1 }, []string{"rate"}},
		{"more consumers than partitions", func(c *Config) { c.Consumers = 2 }, []string{"consumers"}},
		{"ok group", func(c *Config) { c.Group = group(GroupConfig{ID: "g"}) }, nil},
		{"ok group consumer protocol manual", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Members: 3, Protocol: "consumer", Commit: "manual", CommitInterval: Duration(time.Second)})
		}, nil},
		{"group fields without id", func(c *Config) { c.Group.Members = 2 }, []string{"group.id"}},
		{"group bad id", func(c *Config) { c.Group = group(GroupConfig{ID: "a/b"}) }, []string{"group.id"}},
		{"group members", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Members: 500}) }, []string{"group.members"}},
		{"group protocol", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Protocol: "eager"}) }, []string{"group.protocol"}},
		{"group commit", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Commit: "sometimes"}) }, []string{"group.commit"}},
		{"group commit interval", func(c *Config) { c.Group = group(GroupConfig{ID: "g", CommitInterval: Duration(time.Microsecond)}) }, []string{"group.commit_interval"}},
		{"group commit epoch", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Commit: "manual", CommitEpoch: "latest"}) }, []string{"group.commit_epoch"}},
		{"group commit epoch with auto commits", func(c *Config) { c.Group = group(GroupConfig{ID: "g", CommitEpoch: "record"}) }, []string{"group.commit_epoch"}},
		{"group commit epoch with kafka-go", func(c *Config) {
			c.Driver, c.Group = DriverKafkaGo, group(GroupConfig{ID: "g", Commit: "manual", CommitEpoch: "record"})
		}, []string{"group.commit_epoch"}},
		{"ok group commit epoch", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Commit: "manual", CommitEpoch: "record"}) }, nil},
		{"group session timeout", func(c *Config) { c.Group = group(GroupConfig{ID: "g", SessionTimeout: Duration(time.Millisecond)}) }, []string{"group.session_timeout"}},
		{"group session timeout under KIP-848", func(c *Config) {
			c.Group = group(GroupConfig{ID: "g", Protocol: "consumer", SessionTimeout: Duration(20 * time.Second)})
		}, []string{"group.session_timeout"}},
		{"group max poll interval", func(c *Config) { c.Group = group(GroupConfig{ID: "g", MaxPollInterval: Duration(time.Hour)}) }, []string{"group.max_poll_interval"}},
		{"group delivery", func(c *Config) { c.Group = group(GroupConfig{ID: "g", Delivery: "at-most-once"}) }, []string{"group.delivery"}},
		{"group and consumers", func(c *Config) { c.Group, c.Consumers = group(GroupConfig{ID: "g"}), 1 }, []string{"consumers"}},
		{"kafka-go refuses KIP-848", func(c *Config) { c.Driver, c.Group = DriverKafkaGo, group(GroupConfig{ID: "g", Protocol: "consumer"}) }, []string{"group.protocol"}},
		{"offset reset", func(c *Config) { c.OffsetReset = "none" }, []string{"offset_reset"}},
		{"negative duration", func(c *Config) { c.Duration = -1 }, []string{"duration"}},
		{"several at once", func(c *Config) { c.Partitions, c.Acks, c.FinalReadTimeout = 0, "x", -1 }, []string{"partitions", "acks", "final_read_timeout"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Defaults()
			tc.edit(&c)
			wantProblemPaths(t, c.Validate(), tc.paths)
		})
	}
}

// wantProblemPaths fails unless err is a *ValidationError naming exactly
// paths, in order (none: err is nil).
func wantProblemPaths(t *testing.T, err error, paths []string) {
	t.Helper()
	if len(paths) == 0 {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError naming %v, got %v", paths, err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Path)
	}
	if strings.Join(got, ",") != strings.Join(paths, ",") {
		t.Errorf("paths %v, want %v (%v)", got, paths, err)
	}
}

func TestValidationErrorUnder(t *testing.T) {
	c := Config{Acks: "7"}
	c.Defaults()
	var ve *ValidationError
	if !errors.As(c.Validate(), &ve) {
		t.Fatal("want a ValidationError")
	}
	if got := ve.Under("workload").Error(); !strings.Contains(got, "workload.acks: \"7\"") {
		t.Errorf("Under: %s", got)
	}
}

const sampleYAML = `
driver: kafka-go
topic: orders
partitions: 3
producers: 4
acks: 1
retries: 0
request_timeout: 2s
max_in_flight: 16
partitioning: key
keys: 8
rate: 500
consumers: 2
offset_reset: latest
duration: 1m30s
`

func TestConfigDecode(t *testing.T) {
	want := Config{Driver: DriverKafkaGo, Topic: "orders", Partitions: 3, Producers: 4, Acks: AcksLeader,
		RequestTimeout: Duration(2 * time.Second), MaxInFlight: 16, Partitioning: ByKey, Keys: 8, Rate: 500,
		Consumers: 2, OffsetReset: ResetLatest, Isolation: DefaultIsolation, Duration: Duration(90 * time.Second),
		FinalReadTimeout: Duration(DefaultFinalReadTimeout)}
	decoders := map[string]func([]byte, any) error{
		"gopkg.in/yaml.v3": yamlv3.Unmarshal,
	}
	for name, dec := range decoders {
		var c Config
		if err := dec([]byte(sampleYAML), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c.Defaults()
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, c, want)
		}
	}
	// JSON round trip, and numeric acks. FinalReadTimeout is no file
	// field (a scenario's final.read_timeout sets it): Defaults refills it.
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	err = json.Unmarshal(b, &back)
	back.Defaults()
	if err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("JSON round trip: %v\n got %+v\nwant %+v", err, back, want)
	}
	for in, acks := range map[string]Acks{`{"acks":-1}`: AcksAll, `{"acks":0}`: AcksNone, `{"acks":"all"}`: AcksAll} {
		var c Config
		if err := json.Unmarshal([]byte(in), &c); err != nil || c.Acks != acks {
			t.Errorf("%s: acks %q, %v; want %q", in, c.Acks, err, acks)
		}
	}
	for _, bad := range []string{"duration: 30\n", "duration: soon\n"} {
		var c Config
		if err := yamlv3.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%q: want an error (a duration needs a unit)", bad)
		}
	}
}

// group fills g's defaults, as Config.Defaults does for a file's group.
func group(g GroupConfig) GroupConfig {
	g.defaults()
	return g
}
