package workloads

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// A service's own Java client settings (--producer-config,
// --consumer-config): a properties file as the service hands it to
// KafkaProducer or KafkaConsumer. This file is the one table of the keys
// kchaos knows, written once: for each, the workload setting it maps onto
// (so that every driver honours it), or that it goes to the Java client
// verbatim (java only: the Go drivers have no such knob here), or why
// kchaos refuses it. Applying a file (ApplyClientProps), validating the
// verbatim ones (Validate), stating the settings a run used
// (ClientSettings) and the docs' table all read clientKeys, so a key
// cannot mean one thing in one place and another elsewhere.

// ClientSide is which client a properties file configures.
type ClientSide string

// The two client properties files.
const (
	ProducerSide ClientSide = "producer"
	ConsumerSide ClientSide = "consumer"
)

// ClientProps is one client properties file as read: its name (for
// messages) and its keys and values.
type ClientProps struct {
	Side  ClientSide
	File  string
	Props map[string]string
}

// clientKey is one Java client property kchaos knows on one side.
type clientKey struct {
	name string
	side ClientSide
	// check refuses a value the Java client would refuse (nil: any).
	check func(v string) error
	// field is the workload setting the key maps onto (a YAML path under
	// workload), set by set and stated by get; "" for a key that goes to
	// the Java client verbatim.
	field string
	set   func(c *Config, v string) error
	get   func(c *Config) string
	// needs says why the key has no meaning in c ("" when it has one):
	// e.g. a group setting for consumers that are no group.
	needs func(c *Config) string
	// refused is why kchaos refuses the key outright.
	refused string
}

// verbatim reports whether the key goes to the Java client as written.
func (k clientKey) verbatim() bool { return k.field == "" && k.refused == "" }

// Reasons for refusing keys, one sentence each.
const (
	whyRecording  = "kchaos owns it: the history names every record and client by what kchaos sets here"
	whyBootstrap  = "kchaos connects to the cluster it started (or the scenario's hosts); the run's brokers are the bootstrap"
	whySerde      = "kchaos's records are strings it writes and reads back itself (the history compares them byte for byte)"
	whyClientID   = "kchaos names each client (kchaos-producer-N, ...) so that faults and the history can tell them apart"
	whyTxnID      = "kchaos names each transactional producer (kchaos-TOPIC-txn-N) so that fencing and the txn-coordinator role resolve; set workload.transactions"
	whyGroupID    = "kchaos names the group (workload.group.id) so that the member faults and the checker find it; set workload.group.id"
	whyInstanceID = "one file configures every member, and a static member id must differ per member; kchaos runs dynamic members"
	whyPartition  = "kchaos chooses each record's partition itself (the history names it before the send)"
	whyClasses    = "the driver's JVM holds only kafka-clients: a class of yours is not on its class path"
	whySecurity   = "the cluster kchaos runs listens in PLAINTEXT without authentication; security settings would not connect"
)

// whyVerbatimOnly is why a verbatim key means nothing to a driver without
// Capabilities.VerbatimProps, naming those that take it.
func whyVerbatimOnly() string {
	return "kchaos cannot set it on the Go clients; only driver " + capableDrivers(takesVerbatimProps) + " takes it (verbatim)"
}

// Value checks of the Java client's own ranges.
func intIn(lo, hi int64) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("want an integer %d..%d", lo, hi)
		}
		return nil
	}
}

// retriesCheck takes 0..MaxRetries, and names the Java client's default
// when a service's file writes it (a config dumped from a running
// producer's log carries it).
func retriesCheck(v string) error {
	err := intIn(0, MaxRetries)(v)
	if err != nil && strings.TrimSpace(v) == strconv.Itoa(math.MaxInt32) {
		return fmt.Errorf("%w: 2147483647 is the Java client's default (retry until delivery.timeout.ms), "+
			"which kchaos cannot count; write the tries the service's delivery.timeout.ms allows "+
			"(about delivery.timeout.ms / request.timeout.ms - 1)", err)
	}
	return err
}

var (
	nonNegInt = intIn(0, math.MaxInt32)
	msInt     = intIn(0, math.MaxInt32)
	posInt    = intIn(1, math.MaxInt32)
	anyValue  = func(string) error { return nil }
)

func oneOf(vals ...string) func(string) error {
	return func(v string) error {
		if !slices.Contains(vals, strings.ToLower(strings.TrimSpace(v))) {
			return fmt.Errorf("want %s", strings.Join(vals, ", "))
		}
		return nil
	}
}

var boolean = oneOf("true", "false")

// kafkaClasses: a list of Kafka's own classes (the only ones on the
// driver's class path), e.g. partition.assignment.strategy.
func kafkaClasses(v string) error {
	for _, c := range strings.Split(v, ",") {
		if c = strings.TrimSpace(c); c != "" && !strings.HasPrefix(c, "org.apache.kafka.") {
			return fmt.Errorf("%q: want Kafka's own classes (org.apache.kafka....): %s", c, whyClasses)
		}
	}
	return nil
}

func atoi(v string) int       { n, _ := strconv.Atoi(strings.TrimSpace(v)); return n }
func msDur(v string) Duration { return Duration(time.Duration(atoi(v)) * time.Millisecond) }
func msOf(d Duration) string  { return strconv.FormatInt(d.Std().Milliseconds(), 10) }
func isTrue(v string) bool    { return strings.EqualFold(strings.TrimSpace(v), "true") }
func lower(v string) string   { return strings.ToLower(strings.TrimSpace(v)) }
func needGroup(c *Config) string {
	return cond(!c.Group.Enabled(), "the scenario's consumers are no group (workload.group.id unset)")
}
func needTxn(c *Config) string {
	return cond(!c.Transactions.Enabled, "the scenario's producers are not transactional")
}

// needClassic and needConsumerProto: a key of one protocol's members,
// which the Java client refuses under the other, so every member must run
// it (a mixed group, group.protocols, takes neither).
func needClassic(c *Config) string {
	return needGroup(c) + cond(needGroup(c) == "" && c.Group.UsesProtocol(histories.ProtocolConsumer), "only with group protocol classic")
}
func needConsumerProto(c *Config) string {
	return needGroup(c) + cond(needGroup(c) == "" && c.Group.UsesProtocol(histories.ProtocolClassic), "only with group protocol consumer")
}

func cond(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

// clientKeys is the table. Mapped keys first, then the verbatim ones,
// then the refused ones; docs/workloads.md lists them the same way.
var clientKeys = []clientKey{
	// Producer keys that map onto the workload, for every driver.
	{name: "acks", side: ProducerSide, check: oneOf("0", "1", "all", "-1"), field: "acks",
		set: func(c *Config, v string) error { c.Acks = Acks(v).Normalize(); return nil },
		get: func(c *Config) string { return string(c.Acks.Normalize()) }},
	{name: "enable.idempotence", side: ProducerSide, check: boolean, field: "idempotent",
		set: func(c *Config, v string) error { c.Idempotent = isTrue(v); return nil },
		get: func(c *Config) string { return strconv.FormatBool(c.Idempotent) }},
	{name: "retries", side: ProducerSide, check: retriesCheck, field: "retries",
		set: func(c *Config, v string) error { c.Retries = atoi(v); return nil },
		get: func(c *Config) string { return strconv.Itoa(c.Retries) }},
	{name: "request.timeout.ms", side: ProducerSide, check: intIn(100, 600_000), field: "request_timeout",
		set: func(c *Config, v string) error { c.RequestTimeout = msDur(v); return nil },
		get: func(c *Config) string { return msOf(c.RequestTimeout) }},
	{name: "max.in.flight.requests.per.connection", side: ProducerSide, check: intIn(1, 1024), field: "max_in_flight",
		set: func(c *Config, v string) error { c.MaxInFlight = atoi(v); return nil },
		get: func(c *Config) string { return strconv.Itoa(c.MaxInFlight) }},
	{name: "transaction.timeout.ms", side: ProducerSide, check: intIn(1000, 900_000), field: "transactions.timeout", needs: needTxn,
		set: func(c *Config, v string) error { c.Transactions.Timeout = msDur(v); return nil },
		get: func(c *Config) string { return strconv.FormatInt(c.TxnTimeout().Milliseconds(), 10) }},

	// Consumer keys that map onto the workload, for every driver.
	{name: "isolation.level", side: ConsumerSide, check: oneOf(histories.ReadUncommitted, histories.ReadCommitted), field: "isolation",
		set: func(c *Config, v string) error { c.Isolation = lower(v); return nil },
		get: func(c *Config) string { return c.Isolation }},
	{name: "auto.offset.reset", side: ConsumerSide, check: oneOf(ResetEarliest, ResetLatest), field: "offset_reset",
		set: func(c *Config, v string) error { c.OffsetReset = lower(v); return nil },
		get: func(c *Config) string { return c.OffsetReset }},
	{name: "group.protocol", side: ConsumerSide, check: oneOf(histories.ProtocolClassic, histories.ProtocolConsumer), field: "group.protocol", needs: needGroup,
		set: func(c *Config, v string) error { c.Group.Protocol = lower(v); return nil },
		get: func(c *Config) string { return c.Group.ProtocolList() }},
	{name: "enable.auto.commit", side: ConsumerSide, check: boolean, field: "group.commit", needs: needGroup,
		set: func(c *Config, v string) error {
			c.Group.Commit = CommitManual
			if isTrue(v) {
				c.Group.Commit = CommitAuto
			}
			return nil
		},
		get: func(c *Config) string { return strconv.FormatBool(c.Group.Commit == CommitAuto) }},
	{name: "auto.commit.interval.ms", side: ConsumerSide, check: intIn(10, 600_000), field: "group.commit_interval", needs: needGroup,
		set: func(c *Config, v string) error { c.Group.CommitInterval = msDur(v); return nil },
		get: func(c *Config) string { return msOf(c.Group.CommitInterval) }},
	{name: "session.timeout.ms", side: ConsumerSide, check: intIn(1000, 600_000), field: "group.session_timeout", needs: needClassic,
		set: func(c *Config, v string) error { c.Group.SessionTimeout = msDur(v); return nil },
		get: func(c *Config) string { return msOf(c.Group.SessionTimeout) }},
	{name: "max.poll.interval.ms", side: ConsumerSide, check: intIn(1000, 1_800_000), field: "group.max_poll_interval", needs: needGroup,
		set: func(c *Config, v string) error { c.Group.MaxPollInterval = msDur(v); return nil },
		get: func(c *Config) string { return msOf(c.Group.MaxPollInterval) }},

	// Producer keys the Java client takes verbatim.
	{name: "linger.ms", side: ProducerSide, check: msInt},
	{name: "batch.size", side: ProducerSide, check: nonNegInt},
	{name: "compression.type", side: ProducerSide, check: oneOf("none", "gzip", "snappy", "lz4", "zstd")},
	{name: "compression.gzip.level", side: ProducerSide, check: intIn(-1, 9)},
	{name: "compression.lz4.level", side: ProducerSide, check: intIn(1, 17)},
	{name: "compression.zstd.level", side: ProducerSide, check: intIn(-131072, 22)},
	{name: "delivery.timeout.ms", side: ProducerSide, check: msInt},
	{name: "max.block.ms", side: ProducerSide, check: msInt},
	{name: "buffer.memory", side: ProducerSide, check: posInt},
	{name: "max.request.size", side: ProducerSide, check: posInt},
	{name: "metadata.max.idle.ms", side: ProducerSide, check: intIn(5000, math.MaxInt32)},

	// Consumer keys the Java client takes verbatim.
	{name: "client.rack", side: ConsumerSide, check: anyValue},
	{name: "fetch.min.bytes", side: ConsumerSide, check: nonNegInt},
	{name: "fetch.max.bytes", side: ConsumerSide, check: nonNegInt},
	{name: "fetch.max.wait.ms", side: ConsumerSide, check: msInt},
	{name: "max.partition.fetch.bytes", side: ConsumerSide, check: nonNegInt},
	{name: "max.poll.records", side: ConsumerSide, check: posInt},
	{name: "request.timeout.ms", side: ConsumerSide, check: msInt},
	{name: "default.api.timeout.ms", side: ConsumerSide, check: msInt},
	{name: "check.crcs", side: ConsumerSide, check: boolean},
	{name: "allow.auto.create.topics", side: ConsumerSide, check: boolean},
	{name: "heartbeat.interval.ms", side: ConsumerSide, check: posInt, needs: needClassic},
	{name: "partition.assignment.strategy", side: ConsumerSide, check: kafkaClasses, needs: needClassic},
	{name: "group.remote.assignor", side: ConsumerSide, check: oneOf("uniform", "range"), needs: needConsumerProto},

	// Refused: they would break kchaos's recording or cannot work here.
	{name: "bootstrap.servers", refused: whyBootstrap},
	{name: "client.id", refused: whyClientID},
	{name: "key.serializer", side: ProducerSide, refused: whySerde},
	{name: "value.serializer", side: ProducerSide, refused: whySerde},
	{name: "key.deserializer", side: ConsumerSide, refused: whySerde},
	{name: "value.deserializer", side: ConsumerSide, refused: whySerde},
	{name: "transactional.id", side: ProducerSide, refused: whyTxnID},
	{name: "partitioner.class", side: ProducerSide, refused: whyPartition},
	{name: "partitioner.ignore.keys", side: ProducerSide, refused: whyPartition},
	{name: "partitioner.adaptive.partitioning.enable", side: ProducerSide, refused: whyPartition},
	{name: "partitioner.availability.timeout.ms", side: ProducerSide, refused: whyPartition},
	{name: "group.id", side: ConsumerSide, refused: whyGroupID},
	{name: "group.instance.id", side: ConsumerSide, refused: whyInstanceID},
	{name: "interceptor.classes", refused: whyClasses},
	{name: "metric.reporters", refused: whyClasses},
	{name: "security.protocol", refused: whySecurity},
}

// bothSides are verbatim keys either client takes: connection and
// metadata behaviour (kchaos sets some of these itself for quick
// fail-over, javaCommon; the file's win).
var bothSides = []clientKey{
	{name: "metadata.max.age.ms", check: msInt},
	{name: "retry.backoff.ms", check: msInt},
	{name: "retry.backoff.max.ms", check: msInt},
	{name: "reconnect.backoff.ms", check: msInt},
	{name: "reconnect.backoff.max.ms", check: msInt},
	{name: "socket.connection.setup.timeout.ms", check: msInt},
	{name: "socket.connection.setup.timeout.max.ms", check: msInt},
	{name: "connections.max.idle.ms", check: intIn(-1, math.MaxInt32)},
	{name: "send.buffer.bytes", check: intIn(-1, math.MaxInt32)},
	{name: "receive.buffer.bytes", check: intIn(-1, math.MaxInt32)},
	{name: "client.dns.lookup", check: oneOf("use_all_dns_ips", "resolve_canonical_bootstrap_servers_only")},
	{name: "enable.metrics.push", check: boolean},
}

// securityPrefixes are refused as security.protocol is.
var securityPrefixes = []string{"ssl.", "sasl."}

// lookupClientKey finds key on side: the table's entry, a both-sides
// entry, or a refused security key. ok is false for a key kchaos does
// not know.
func lookupClientKey(side ClientSide, key string) (clientKey, bool) {
	for _, k := range clientKeys {
		if k.name == key && (k.side == side || k.side == "") {
			return k, true
		}
	}
	for _, k := range bothSides {
		if k.name == key {
			k.side = side
			return k, true
		}
	}
	for _, p := range securityPrefixes {
		if strings.HasPrefix(key, p) {
			return clientKey{name: key, refused: whySecurity}, true
		}
	}
	return clientKey{}, false
}

// clientKeyRow is one row of the table as the docs print it.
type clientKeyRow struct {
	Key, Side string
	// Maps is the workload setting ("workload.acks"), "verbatim (java)" or
	// "refused: why".
	Maps string
}

// clientKeyTable is the table in order, for the docs and their test.
func clientKeyTable() []clientKeyRow {
	var out []clientKeyRow
	row := func(k clientKey, side string) {
		r := clientKeyRow{Key: k.name, Side: side}
		switch {
		case k.refused != "":
			r.Maps = "refused: " + k.refused
		case k.field != "":
			r.Maps = "workload." + k.field
		default:
			r.Maps = "verbatim (java)"
		}
		out = append(out, r)
	}
	for _, k := range clientKeys {
		side := string(k.side)
		if side == "" {
			side = "both"
		}
		row(k, side)
	}
	for _, k := range bothSides {
		row(k, "both")
	}
	return out
}
