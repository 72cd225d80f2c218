package workloads

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/bounds"
)

// Partitioning modes.
const (
	RoundRobin = "round-robin" // the workload spreads sends over partitions in turn
	ByKey      = "key"         // partition = murmur2(key) % partitions, as Kafka's default partitioner
)

// Offset reset rules of consumers.
const (
	ResetEarliest = "earliest"
	ResetLatest   = "latest"
)

// Defaults of a workload. They are written here once: a scenario that sets
// nothing runs with exactly these (harness/scenario fills from Defaults).
const (
	DefaultTopic            = "kchaos"
	DefaultProducers        = 1
	DefaultRequestTimeout   = 5 * time.Second
	DefaultKeys             = 16
	DefaultDuration         = 60 * time.Second
	DefaultFinalReadTimeout = 60 * time.Second
	DefaultIsolation        = histories.ReadUncommitted
	DefaultTxnMinSends      = 1
	DefaultTxnMaxSends      = 4
	DefaultTxnAbortRate     = 0.1
	DefaultTxnTimeout       = 10 * time.Second
)

// Config is one workload: which client, how it produces and consumes, and
// for how long. The zero value plus Defaults is a valid one-producer,
// acks=all, one-op-in-flight workload on topic DefaultTopic with franz-go.
type Config struct {
	// Driver is the Kafka client library: "franz" (github.com/twmb/franz-go),
	// "kafka-go" (github.com/segmentio/kafka-go) or "java" (Apache Kafka's
	// own kafka-clients, in a JVM beside the brokers on Docker, on the kchaos
	// host on SSH: workloads/java).
	Driver string `yaml:"driver" json:"driver"`
	// ClientVersion is the kafka-clients release driver java runs (X.Y.Z
	// from 3.9, X.Y.x, latest, or local:NAME for a build in the local Maven
	// repository); empty means the cluster's own version (ClusterVersion).
	// Only with driver java: the Go clients have no Kafka version.
	ClientVersion string `yaml:"client_version,omitempty" json:"client_version,omitempty"`
	// ClusterVersion is the Kafka version the cluster runs, as resolved
	// (cluster.Config.KafkaVersion). It is not part of a scenario's
	// workload section: the harness sets it from cluster.kafka (one field
	// for one fact), and driver java runs that client version unless
	// ClientVersion names another.
	ClusterVersion string `yaml:"-" json:"-"`
	// Runner, when the cluster's backend has one, runs driver java's JVMs
	// in the cluster's environment instead of on the kchaos host (Docker:
	// a container beside the brokers, workloads/java/proc.go). Like ClusterVersion
	// it is not part of a scenario: the harness sets it from the cluster
	// (nil: the JVMs run on this host, as on the SSH backend).
	Runner cluster.ClientRunner `yaml:"-" json:"-"`
	// Topic must exist; the harness creates it with its replica assignment.
	Topic string `yaml:"topic" json:"topic"`
	// Partitions of Topic that the workload writes and reads (0..N-1).
	Partitions int `yaml:"partitions" json:"partitions" zero:"unset"`

	// Producers is the number of producer clients (left out: the default,
	// 1: every kchaos workload produces; a written 0 is refused).
	Producers int `yaml:"producers" json:"producers" zero:"unset"`
	// Acks: "0", "1" or "all".
	Acks Acks `yaml:"acks" json:"acks"`
	// Idempotent turns the idempotent producer on. It needs acks=all and
	// retries > 0 (an idempotent producer keeps its sequence numbers valid
	// by retrying), and the franz driver. Transactions turn it on
	// (Defaults); a scenario that writes false beside them is refused
	// (harness/scenario/silentdefaults.go).
	Idempotent bool `yaml:"idempotent" json:"idempotent" written:"transactions imply an idempotent producer"`
	// Retries is how many times the client may resend a record; 0 (the
	// default) turns client retries off, so that a definite broker error
	// stays definite (after a retry every error is indeterminate).
	Retries int `yaml:"retries" json:"retries"`
	// RequestTimeout bounds one produce request (the broker waits this long
	// for the ISR's acks, the client a little longer for the response).
	RequestTimeout Duration `yaml:"request_timeout" json:"request_timeout" zero:"unset"`
	// MaxInFlight is the number of sends each producer client keeps in
	// flight. 1 (the default) is Jepsen's model: one op per process. Above
	// 1 is pipelined mode: every in-flight slot is its own process, so each
	// record is still its own op, and the client batches concurrent sends.
	MaxInFlight int `yaml:"max_in_flight" json:"max_in_flight" zero:"unset"`
	// Partitioning: "round-robin" (default) or "key".
	Partitioning string `yaml:"partitioning" json:"partitioning"`
	// Keys is the number of distinct keys in key mode (default 16). Only
	// key mode has keys: Validate refuses keys with round-robin rather
	// than ignore them.
	Keys int `yaml:"keys,omitempty" json:"keys,omitempty" zero:"unset"`
	// Rate limits sends per second over all producers; 0 = unlimited.
	Rate float64 `yaml:"rate" json:"rate"`

	// Consumers is the number of consumer processes; each is assigned a
	// share of the partitions (p % consumers). 0 = no consumers.
	Consumers int `yaml:"consumers" json:"consumers"`
	// Group, when its id is set, makes the consumers members of one
	// consumer group (group_config.go) instead of assigned readers.
	Group GroupConfig `yaml:"group,omitempty" json:"group,omitempty"`
	// Shares, when its group is set, adds members of one share group
	// (KIP-932, share_config.go) beside the producers.
	Shares ShareConfig `yaml:"shares,omitempty" json:"shares,omitempty"`
	// OffsetReset is where a consumer starts, and where it goes on
	// OFFSET_OUT_OF_RANGE: "earliest" (default) or "latest".
	OffsetReset string `yaml:"offset_reset" json:"offset_reset"`
	// Isolation is the consumers' isolation level: "read_uncommitted"
	// (default) or "read_committed" (franz, java). The final read reads at
	// read_committed whenever this says so or transactions are on.
	Isolation string `yaml:"isolation,omitempty" json:"isolation,omitempty"`

	// ProducerProps and ConsumerProps are Java client properties that
	// driver java passes to its KafkaProducer and KafkaConsumer verbatim,
	// after its own settings (a service's --producer-config and
	// --consumer-config: clientprops.go has the keys). The Go drivers
	// have no such knobs, so Validate refuses them there, and a key that
	// maps onto a field above (acks, isolation.level, ...) is refused
	// here: one setting, one field.
	ProducerProps map[string]string `yaml:"producer_props,omitempty" json:"producer_props,omitempty"`
	ConsumerProps map[string]string `yaml:"consumer_props,omitempty" json:"consumer_props,omitempty"`

	// Transactions makes every producer transactional (txn_config.go).
	// The zero value is off.
	Transactions TxnConfig `yaml:"transactions,omitempty" json:"transactions,omitempty"`

	// Metadata runs admin clients that change the KRaft metadata beside
	// the producers (metadata.go); the zero value is off.
	Metadata MetadataConfig `yaml:"metadata,omitempty" json:"metadata,omitempty"`

	// Duration of the produce/consume phase (default 60s).
	Duration Duration `yaml:"duration" json:"duration" zero:"unset"`
	// FinalReadTimeout bounds the final read of all partitions (default
	// 60s). It is not part of a scenario's workload section: a scenario
	// sets it as final.read_timeout, the final phase's bound, and the
	// harness passes it here (one field for one fact).
	FinalReadTimeout Duration `yaml:"-" json:"-"`
}

// Defaults fills unset fields and canonicalizes names.
func (c *Config) Defaults() {
	c.Driver = canonicalDriver(c.Driver)
	if c.Topic == "" {
		c.Topic = DefaultTopic
	}
	if c.Partitions == 0 {
		c.Partitions = 1
	}
	if c.Producers == 0 {
		c.Producers = DefaultProducers
	}
	if c.Acks == "" {
		c.Acks = AcksAll
	}
	c.Acks = c.Acks.Normalize()
	if c.RequestTimeout == 0 {
		c.RequestTimeout = Duration(DefaultRequestTimeout)
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 1
	}
	if c.Partitioning == "" {
		c.Partitioning = RoundRobin
	}
	if c.Partitioning == ByKey && c.Keys == 0 {
		c.Keys = DefaultKeys
	}
	if c.OffsetReset == "" {
		c.OffsetReset = ResetEarliest
	}
	if c.Isolation == "" {
		c.Isolation = DefaultIsolation
	}
	c.Isolation = strings.ToLower(strings.TrimSpace(c.Isolation))
	c.Transactions.defaults()
	c.Group.defaults()
	c.Metadata.Defaults()
	c.Shares.defaults()
	if c.Transactions.Enabled {
		// A transactional producer is an idempotent one (Kafka requires
		// it: InitProducerId gives both the producer id and the epoch that
		// fences). Set here so that run.json says so.
		c.Idempotent = true
	}
	if c.Duration == 0 {
		c.Duration = Duration(DefaultDuration)
	}
	if c.FinalReadTimeout == 0 {
		c.FinalReadTimeout = Duration(DefaultFinalReadTimeout)
	}
}

// Pipelined reports whether producers keep more than one send in flight.
func (c *Config) Pipelined() bool { return c.MaxInFlight > 1 }

// IdempotentInEffect reports whether the producer runs idempotent:
// written so, or transactional (which implies it).
func (c *Config) IdempotentInEffect() bool { return c.Idempotent || c.Transactions.Enabled }

// RetriesEnabled reports whether the client may resend a record: then no
// error proves the record absent (an earlier attempt may have landed).
func (c *Config) RetriesEnabled() bool { return c.Retries > 0 || c.Idempotent }

// ProducerInfo is the producer's durability settings as run.json records
// them: the checker learns from it whether duplicates count.
func (c *Config) ProducerInfo() histories.ProducerInfo {
	info := histories.ProducerInfo{Driver: canonicalDriver(c.Driver), Acks: string(c.Acks.Normalize()),
		Idempotent: c.IdempotentInEffect(), Retries: c.Retries,
		Transactional: c.Transactions.Enabled, Props: c.ProducerProps, ConsumerProps: c.ConsumerProps}
	if c.Transactions.Enabled {
		info.TransactionTimeoutMS = c.TxnTimeout().Milliseconds()
	}
	return info
}

// TxnTimeout is the transactional producers' transaction.timeout.ms.
func (c *Config) TxnTimeout() time.Duration {
	if to := c.Transactions.Timeout.Std(); to > 0 {
		return to
	}
	return DefaultTxnTimeout
}

// FinalReadIsolation is the isolation level of the final read:
// read_committed when the consumers read so or producers are
// transactional (then the committed records are what must survive).
func (c *Config) FinalReadIsolation() string {
	if c.Transactions.Enabled || histories.IsReadCommitted(c.Isolation) {
		return histories.ReadCommitted
	}
	return histories.ReadUncommitted
}

// MaxRetries bounds workload.retries: kchaos derives a send's delivery
// timeout and its own backstop from the count (every try's request timeout
// plus a second), so the count must be one a run can wait out.
const MaxRetries = 1000

// IdempotentMaxInFlight is the most requests an idempotent producer may
// keep in flight per connection: the Java client refuses a higher
// max.in.flight.requests.per.connection with idempotence on (Kafka keeps
// the last five batches' sequences per producer to deduplicate retries).
const IdempotentMaxInFlight = 5

// OpTimeout is the backstop deadline of one send: every try's request
// timeout plus slack for metadata and connection set-up. Exported for the
// driver packages (workloads/java), whose clients wait by it too.
func (c *Config) OpTimeout() time.Duration {
	return time.Duration(c.Retries+1)*c.RequestTimeout.Std() + 5*time.Second
}

// FieldError is one invalid setting, named by its YAML path.
type FieldError struct {
	Path string
	Msg  string
}

func (e FieldError) Error() string { return e.Path + ": " + e.Msg }

// ValidationError lists every invalid setting of a Config.
type ValidationError struct{ Problems []FieldError }

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return "invalid workload: " + strings.Join(parts, "; ")
}

// Under returns a copy whose paths start with prefix (e.g. "workload"), for
// a caller that embeds the Config in a larger file.
func (e *ValidationError) Under(prefix string) *ValidationError {
	out := &ValidationError{Problems: make([]FieldError, len(e.Problems))}
	for i, p := range e.Problems {
		out.Problems[i] = FieldError{Path: prefix + "." + p.Path, Msg: p.Msg}
	}
	return out
}

var topicName = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

// Validate reports every problem with c (call Defaults first), as a
// *ValidationError naming each field by its YAML path. It also asks the
// driver whether it can honour the settings: a driver refuses what it
// cannot do rather than silently ignore it.
func (c *Config) Validate() error {
	var ps []FieldError
	add := func(path, format string, args ...any) {
		ps = append(ps, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	drv, known := drivers[canonicalDriver(c.Driver)]
	if !known {
		add("driver", "%q: want %s", c.Driver, driverList())
	}
	if c.ClientVersion != "" && !capabilitiesOf(c.Driver).ClientVersion {
		add("client_version", "%q: only with driver %s (the Go clients have no Kafka version)", c.ClientVersion, capableDrivers(takesClientVersion))
	}
	if !topicName.MatchString(c.Topic) || c.Topic == "." || c.Topic == ".." {
		add("topic", "%q: want 1-249 characters of [a-zA-Z0-9._-]", c.Topic)
	}
	if c.Partitions < 1 || c.Partitions > bounds.Partitions {
		add("partitions", "%d: want 1..%d", c.Partitions, bounds.Partitions)
	}
	if c.Producers < 1 || c.Producers > 1000 {
		add("producers", "%d: want 1..1000", c.Producers)
	}
	if !c.Acks.Valid() {
		add("acks", "%q: want 0, 1 or all", string(c.Acks))
	}
	if c.Retries < 0 || c.Retries > MaxRetries {
		add("retries", "%d: want 0..%d", c.Retries, MaxRetries)
	}
	if c.Idempotent && c.Acks.Valid() && c.Acks.Normalize() != AcksAll && !c.Transactions.Enabled {
		add("idempotent", "needs acks=all (Kafka's idempotent producer requires it); acks is %s", c.Acks)
	}
	if c.Idempotent && c.Retries == 0 && !c.Transactions.Enabled {
		add("idempotent", "needs retries > 0: an idempotent producer retries to keep its sequence numbers valid")
	}
	if rt := c.RequestTimeout.Std(); rt < 100*time.Millisecond || rt > 10*time.Minute {
		add("request_timeout", "%s: want 100ms..10m", rt)
	}
	if c.MaxInFlight < 1 || c.MaxInFlight > 1024 {
		add("max_in_flight", "%d: want 1..1024 (1 = one op in flight per process)", c.MaxInFlight)
	}
	switch c.Partitioning {
	case RoundRobin:
		if c.Keys != 0 {
			add("keys", "%d: only with partitioning %s (round-robin sends carry no key)", c.Keys, ByKey)
		}
	case ByKey:
		if c.Keys < 1 || c.Keys > 1_000_000 {
			add("keys", "%d: want 1..1000000", c.Keys)
		}
	default:
		add("partitioning", "%q: want %s or %s", c.Partitioning, RoundRobin, ByKey)
	}
	if c.Rate < 0 {
		add("rate", "%g: want >= 0 (0 = unlimited)", c.Rate)
	}
	if c.Consumers < 0 || c.Consumers > c.Partitions {
		add("consumers", "%d: want 0..partitions (%d): each consumer is assigned at least one partition", c.Consumers, c.Partitions)
	}
	if c.OffsetReset != ResetEarliest && c.OffsetReset != ResetLatest {
		add("offset_reset", "%q: want %s or %s", c.OffsetReset, ResetEarliest, ResetLatest)
	}
	if c.Isolation != histories.ReadUncommitted && c.Isolation != histories.ReadCommitted {
		add("isolation", "%q: want %s or %s", c.Isolation, histories.ReadUncommitted, histories.ReadCommitted)
	}
	ps = append(ps, c.validateTxn()...)
	ps = append(ps, c.validateGroup()...)
	ps = append(ps, c.validateMetadata()...)
	ps = append(ps, c.validateShares()...)
	ps = append(ps, c.validateClientProps()...)
	if c.Duration <= 0 {
		add("duration", "%s: want > 0", c.Duration)
	}
	if c.FinalReadTimeout <= 0 {
		add("final_read_timeout", "%s: want > 0", c.FinalReadTimeout)
	}
	if known {
		for _, p := range drv.Refuse(*c) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}
