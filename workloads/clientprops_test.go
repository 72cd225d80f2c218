package workloads

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// clientBase is a defaulted workload on driver d, edited by edit.
func clientBase(d string, edit func(*Config)) Config {
	c := Config{Driver: d, ClusterVersion: "4.4.0"}
	if edit != nil {
		edit(&c)
	}
	c.Defaults()
	return c
}

func withGroup(c *Config) { c.Group.ID = "g"; c.Consumers = 0 }
func withTxn(c *Config)   { c.Transactions.Enabled = true }

// TestApplyClientPropsMapping: every mapped key sets its workload field,
// for each driver that can honour it; every verbatim key lands in the
// props of its side for driver java.
func TestApplyClientPropsMapping(t *testing.T) {
	cases := []struct {
		name   string
		side   ClientSide
		driver string
		edit   func(*Config)
		props  map[string]string
		check  func(c Config) bool
	}{
		{"acks -1", ProducerSide, DriverFranz, nil, map[string]string{"acks": "-1"}, func(c Config) bool { return c.Acks == AcksAll }},
		{"acks 1 kafka-go", ProducerSide, DriverKafkaGo, nil, map[string]string{"acks": "1"}, func(c Config) bool { return c.Acks == AcksLeader }},
		{"acks 0 java", ProducerSide, DriverJava, nil, map[string]string{"acks": "0"}, func(c Config) bool { return c.Acks == AcksNone }},
		{"idempotence and retries", ProducerSide, DriverFranz, nil, map[string]string{"enable.idempotence": "true", "retries": "3"},
			func(c Config) bool { return c.Idempotent && c.Retries == 3 }},
		{"idempotence off", ProducerSide, DriverKafkaGo, nil, map[string]string{"enable.idempotence": "false"}, func(c Config) bool { return !c.Idempotent }},
		{"request timeout", ProducerSide, DriverKafkaGo, nil, map[string]string{"request.timeout.ms": "7000"},
			func(c Config) bool { return c.RequestTimeout.Std() == 7*time.Second }},
		{"max in flight", ProducerSide, DriverFranz, nil, map[string]string{"max.in.flight.requests.per.connection": "5"},
			func(c Config) bool { return c.MaxInFlight == 5 }},
		{"transaction timeout", ProducerSide, DriverFranz, withTxn, map[string]string{"transaction.timeout.ms": "20000"},
			func(c Config) bool { return c.TxnTimeout() == 20*time.Second }},
		{"isolation", ConsumerSide, DriverFranz, nil, map[string]string{"isolation.level": "READ_COMMITTED"},
			func(c Config) bool { return c.Isolation == histories.ReadCommitted }},
		{"offset reset", ConsumerSide, DriverKafkaGo, nil, map[string]string{"auto.offset.reset": "latest"},
			func(c Config) bool { return c.OffsetReset == ResetLatest }},
		{"group protocol", ConsumerSide, DriverFranz, withGroup, map[string]string{"group.protocol": "consumer"},
			func(c Config) bool { return c.Group.Protocol == histories.ProtocolConsumer }},
		{"auto commit off", ConsumerSide, DriverKafkaGo, withGroup, map[string]string{"enable.auto.commit": "false"},
			func(c Config) bool { return c.Group.Commit == CommitManual }},
		{"auto commit on", ConsumerSide, DriverJava, withGroup, map[string]string{"enable.auto.commit": "true", "auto.commit.interval.ms": "250"},
			func(c Config) bool {
				return c.Group.Commit == CommitAuto && c.Group.CommitInterval.Std() == 250*time.Millisecond
			}},
		{"session and poll interval", ConsumerSide, DriverFranz, withGroup, map[string]string{"session.timeout.ms": "9000", "max.poll.interval.ms": "20000"},
			func(c Config) bool {
				return c.Group.SessionTimeout.Std() == 9*time.Second && c.Group.MaxPollInterval.Std() == 20*time.Second
			}},
		{"java verbatim producer", ProducerSide, DriverJava, nil,
			map[string]string{"linger.ms": "5", "compression.type": "lz4", "batch.size": "32768", "delivery.timeout.ms": "30000", "retry.backoff.ms": "50"},
			func(c Config) bool {
				return len(c.ProducerProps) == 5 && c.ProducerProps["compression.type"] == "lz4" && c.ConsumerProps == nil
			}},
		{"java verbatim consumer", ConsumerSide, DriverJava, withGroup,
			map[string]string{"client.rack": "a", "max.poll.records": "10", "request.timeout.ms": "20000", "heartbeat.interval.ms": "1000"},
			func(c Config) bool {
				// request.timeout.ms of a consumer is its own, not the producers'.
				return len(c.ConsumerProps) == 4 && c.RequestTimeout.Std() == DefaultRequestTimeout && c.ProducerProps == nil
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clientBase(tc.driver, tc.edit)
			err := c.ApplyClientProps(ClientProps{Side: tc.side, File: "f.properties", Props: tc.props}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("not applied: %+v", c)
			}
			if err := c.validateClientProps(); err != nil {
				t.Errorf("validate: %v", err)
			}
		})
	}
}

// TestApplyClientPropsRefusals: each refusal names the file and the key
// (and the driver, where the driver is why), and nothing is ignored.
func TestApplyClientPropsRefusals(t *testing.T) {
	cases := []struct {
		name   string
		side   ClientSide
		driver string
		edit   func(*Config)
		props  map[string]string
		want   []string
	}{
		{"linger on franz", ProducerSide, DriverFranz, nil, map[string]string{"linger.ms": "5"}, []string{"linger.ms: no meaning for driver franz"}},
		{"compression on kafka-go", ProducerSide, DriverKafkaGo, nil, map[string]string{"compression.type": "lz4"},
			[]string{"compression.type: no meaning for driver kafka-go"}},
		{"client.rack on franz", ConsumerSide, DriverFranz, nil, map[string]string{"client.rack": "a"}, []string{"client.rack: no meaning for driver franz"}},
		{"idempotence on kafka-go", ProducerSide, DriverKafkaGo, nil, map[string]string{"enable.idempotence": "true", "retries": "2"},
			[]string{"enable.idempotence: driver kafka-go: kafka-go has no idempotent producer"}},
		{"read_committed on kafka-go", ConsumerSide, DriverKafkaGo, nil, map[string]string{"isolation.level": "read_committed"},
			[]string{"isolation.level: driver kafka-go"}},
		{"consumer protocol on kafka-go", ConsumerSide, DriverKafkaGo, withGroup, map[string]string{"group.protocol": "consumer"},
			[]string{"group.protocol: driver kafka-go"}},
		{"six in flight, idempotent", ProducerSide, DriverJava, nil,
			map[string]string{"enable.idempotence": "true", "retries": "3", "max.in.flight.requests.per.connection": "6"},
			[]string{"max.in.flight.requests.per.connection: 6 with idempotence on: the Java client refuses more than 5"}},
		{"idempotence without retries", ProducerSide, DriverJava, nil, map[string]string{"enable.idempotence": "true"},
			[]string{"enable.idempotence: true needs retries > 0", "set retries=N"}},
		{"unknown key", ProducerSide, DriverJava, nil, map[string]string{"lingerms": "5"}, []string{"f.properties: lingerms: not a producer property kchaos knows"}},
		{"consumer key in producer file", ProducerSide, DriverJava, nil, map[string]string{"isolation.level": "read_committed"},
			[]string{"isolation.level: not a producer property"}},
		{"producer key in consumer file", ConsumerSide, DriverJava, nil, map[string]string{"acks": "all"}, []string{"acks: not a consumer property"}},
		{"serializer", ProducerSide, DriverJava, nil, map[string]string{"value.serializer": "x"}, []string{"value.serializer: refused: kchaos's records are strings"}},
		{"deserializer", ConsumerSide, DriverJava, nil, map[string]string{"key.deserializer": "x"}, []string{"key.deserializer: refused"}},
		{"bootstrap", ProducerSide, DriverFranz, nil, map[string]string{"bootstrap.servers": "x:9092"}, []string{"bootstrap.servers: refused: kchaos connects"}},
		{"client id", ConsumerSide, DriverFranz, nil, map[string]string{"client.id": "svc"}, []string{"client.id: refused: kchaos names each client"}},
		{"transactional id", ProducerSide, DriverFranz, nil, map[string]string{"transactional.id": "t"}, []string{"transactional.id: refused"}},
		{"group id", ConsumerSide, DriverFranz, withGroup, map[string]string{"group.id": "svc"}, []string{"group.id: refused: kchaos names the group"}},
		{"static member", ConsumerSide, DriverJava, withGroup, map[string]string{"group.instance.id": "m"}, []string{"group.instance.id: refused"}},
		{"ssl", ProducerSide, DriverJava, nil, map[string]string{"ssl.truststore.location": "/x"}, []string{"ssl.truststore.location: refused: the cluster kchaos runs listens in PLAINTEXT"}},
		{"bad acks", ProducerSide, DriverFranz, nil, map[string]string{"acks": "2"}, []string{`acks: "2": want 0, 1, all, -1`}},
		{"retries at the Java default", ProducerSide, DriverJava, nil, map[string]string{"retries": "2147483647"},
			[]string{`retries: "2147483647": want an integer 0..1000: 2147483647 is the Java client's default (retry until delivery.timeout.ms)`}},
		{"retries above the bound", ProducerSide, DriverJava, nil, map[string]string{"retries": "1001"}, []string{`retries: "1001": want an integer 0..1000`}},
		{"retries beyond kchaos", ProducerSide, DriverFranz, nil, map[string]string{"retries": "2147483647"}, []string{"retries: \"2147483647\": want an integer 0..1000"}},
		{"bad linger", ProducerSide, DriverJava, nil, map[string]string{"linger.ms": "soon"}, []string{`linger.ms: "soon": want an integer`}},
		{"bad compression", ProducerSide, DriverJava, nil, map[string]string{"compression.type": "brotli"}, []string{"compression.type", "want none, gzip, snappy, lz4, zstd"}},
		{"own assignor class", ConsumerSide, DriverJava, withGroup, map[string]string{"partition.assignment.strategy": "com.acme.Mine"}, []string{"partition.assignment.strategy", "not on its class path"}},
		{"group key without a group", ConsumerSide, DriverFranz, nil, map[string]string{"group.protocol": "classic"},
			[]string{"group.protocol: has no meaning in this workload: the scenario's consumers are no group"}},
		{"heartbeat under the consumer protocol", ConsumerSide, DriverJava, func(c *Config) { withGroup(c); c.Group.Protocol = histories.ProtocolConsumer },
			map[string]string{"heartbeat.interval.ms": "1000"}, []string{"heartbeat.interval.ms: has no meaning in this workload: only with group protocol classic"}},
		{"heartbeat in a mixed group", ConsumerSide, DriverJava, func(c *Config) { withGroup(c); c.Group.Protocols = []string{"consumer", "classic"} },
			map[string]string{"heartbeat.interval.ms": "1000"}, []string{"heartbeat.interval.ms: has no meaning in this workload: only with group protocol classic"}},
		{"remote assignor in a mixed group", ConsumerSide, DriverJava, func(c *Config) { withGroup(c); c.Group.Protocols = []string{"consumer", "classic"} },
			map[string]string{"group.remote.assignor": "uniform"}, []string{"group.remote.assignor: has no meaning in this workload: only with group protocol consumer"}},
		{"transaction timeout without transactions", ProducerSide, DriverFranz, nil, map[string]string{"transaction.timeout.ms": "20000"},
			[]string{"transaction.timeout.ms: has no meaning in this workload"}},
		{"every problem at once", ProducerSide, DriverFranz, nil, map[string]string{"a": "1", "linger.ms": "5", "client.id": "x"},
			[]string{"f.properties: a: not a producer", "linger.ms: no meaning", "client.id: refused"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clientBase(tc.driver, tc.edit)
			err := c.ApplyClientProps(ClientProps{Side: tc.side, File: "f.properties", Props: tc.props}, nil)
			if err == nil {
				t.Fatalf("accepted: %+v", c)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if !strings.Contains(err.Error(), "f.properties") {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

// TestApplyClientPropsBounded: a file of thousands of unknown keys is
// refused in a message of bounded size.
func TestApplyClientPropsBounded(t *testing.T) {
	props := map[string]string{}
	for i := range 5000 {
		props[fmt.Sprintf("k%d", i)] = "v"
	}
	c := clientBase(DriverJava, nil)
	err := c.ApplyClientProps(ClientProps{Side: ProducerSide, File: "f", Props: props}, nil)
	if err == nil || !strings.Contains(err.Error(), "and 4988 more problems") || len(err.Error()) > 4096 {
		t.Errorf("error of %d bytes: %.300v", len(err.Error()), err)
	}
}

// TestApplyClientPropsSetWins: a key whose workload field a --set names
// is left to the --set (the harness passes which paths the sets name).
func TestApplyClientPropsSetWins(t *testing.T) {
	c := clientBase(DriverJava, func(c *Config) {
		c.Acks, c.ProducerProps = AcksLeader, map[string]string{"linger.ms": "9"}
	})
	setBy := func(p string) bool { return p == "acks" || p == "producer_props.linger.ms" }
	err := c.ApplyClientProps(ClientProps{Side: ProducerSide, File: "f",
		Props: map[string]string{"acks": "all", "linger.ms": "5", "batch.size": "100", "retries": "2"}}, setBy)
	if err != nil {
		t.Fatal(err)
	}
	if c.Acks != AcksLeader || c.ProducerProps["linger.ms"] != "9" || c.ProducerProps["batch.size"] != "100" || c.Retries != 2 {
		t.Errorf("acks %s, retries %d, props %v: want the --set's acks 1 and linger.ms 9, the file's batch.size and retries", c.Acks, c.Retries, c.ProducerProps)
	}
}

// TestValidateClientProps: props set any other way (a scenario's
// workload section, a --set) are held to the same table.
func TestValidateClientProps(t *testing.T) {
	cases := []struct {
		name   string
		driver string
		edit   func(*Config)
		want   string // "" valid
	}{
		{"java linger", DriverJava, func(c *Config) { c.ProducerProps = map[string]string{"linger.ms": "5"} }, ""},
		{"franz linger", DriverFranz, func(c *Config) { c.ProducerProps = map[string]string{"linger.ms": "5"} },
			"producer_props.linger.ms: no meaning for driver franz"},
		{"mapped key", DriverJava, func(c *Config) { c.ProducerProps = map[string]string{"acks": "1"} },
			"producer_props.acks: set workload.acks instead"},
		{"refused key", DriverJava, func(c *Config) { c.ConsumerProps = map[string]string{"group.id": "x"} }, "consumer_props.group.id: refused"},
		{"unknown key", DriverJava, func(c *Config) { c.ConsumerProps = map[string]string{"x": "1"} }, "consumer_props.x: not a consumer property"},
		{"bad value", DriverJava, func(c *Config) { c.ConsumerProps = map[string]string{"max.poll.records": "0"} }, "consumer_props.max.poll.records"},
		{"delivery below linger + request", DriverJava, func(c *Config) {
			c.ProducerProps = map[string]string{"linger.ms": "100", "delivery.timeout.ms": "5000"}
		}, "producer_props.delivery.timeout.ms: 5000: the Java client wants at least linger.ms + request.timeout.ms (5100)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clientBase(tc.driver, tc.edit)
			var got []string
			for _, p := range c.validateClientProps() {
				got = append(got, p.Error())
			}
			all := strings.Join(got, "; ")
			if (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
				t.Errorf("problems %q, want %q", all, tc.want)
			}
		})
	}
}

// TestClientSettings: the settings stated (the audit page) are the mapped
// fields in the Java client's names, and the verbatim keys.
func TestClientSettings(t *testing.T) {
	c := clientBase(DriverJava, func(c *Config) {
		c.Retries, c.Idempotent = 3, true
		c.ProducerProps = map[string]string{"linger.ms": "5"}
	})
	p := c.ClientSettings(ProducerSide)
	want := map[string]string{"acks": "all", "enable.idempotence": "true", "retries": "3", "request.timeout.ms": "5000",
		"max.in.flight.requests.per.connection": "1", "linger.ms": "5"}
	if fmt.Sprint(p) != fmt.Sprint(want) {
		t.Errorf("producer settings %v, want %v", p, want)
	}
	if cs := c.ClientSettings(ConsumerSide); cs["isolation.level"] != histories.ReadUncommitted || cs["group.protocol"] != "" {
		t.Errorf("consumer settings %v: no group, so no group keys", cs)
	}
}

// TestClientKeysDocumented: docs/workloads.md's table lists every key of
// the table, so the docs cannot fall behind it.
func TestClientKeysDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/workloads.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range clientKeyTable() {
		if !strings.Contains(string(doc), "`"+r.Key+"`") {
			t.Errorf("docs/workloads.md lacks %s (%s, %s)", r.Key, r.Side, r.Maps)
		}
	}
}
