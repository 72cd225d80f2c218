package workloads

import (
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// Commit modes of a group (GroupConfig.Commit).
const (
	// CommitAuto: the client commits by itself, every commit interval and
	// before a revoke (franz-go's autocommit; for kafka-go, whose
	// ConsumerGroup has none, the member loop does it on the same timer,
	// as kafka-go's Reader does with CommitInterval).
	CommitAuto = "auto"
	// CommitManual: the member commits what it delivered, after delivery,
	// every commit interval (0: after every poll) and before a revoke.
	CommitManual = "manual"
)

// Defaults of a group.
const (
	DefaultGroupMembers        = 2
	DefaultGroupCommitInterval = time.Second
	// CommitEpochNone and CommitEpochRecord are GroupConfig.CommitEpoch's
	// values.
	CommitEpochNone             = "none"
	CommitEpochRecord           = "record"
	DefaultGroupSessionTimeout  = 6 * time.Second // the broker's group.min.session.timeout.ms
	DefaultGroupMaxPollInterval = 10 * time.Second
)

// GroupConfig is workload.group: the consumers subscribe as members of one
// consumer group instead of reading assigned partitions. The zero value
// (no id) is off.
type GroupConfig struct {
	// ID is the group id; empty: no group.
	ID string `yaml:"id" json:"id"`
	// Members is the number of member clients (default
	// DefaultGroupMembers). A member killed by a fault is replaced by a
	// new process under the same member name when the fault starts it.
	Members int `yaml:"members,omitempty" json:"members,omitempty" zero:"unset"`
	// Protocol is the rebalance protocol of every member:
	// histories.ProtocolClassic (default) or histories.ProtocolConsumer
	// (KIP-848, Kafka 4.0+; franz-go and the Java client). Omitted when
	// Protocols is given.
	Protocol string `yaml:"protocol,omitempty" json:"protocol,omitempty"`
	// Protocols, when given, is each member's protocol instead (member i
	// runs Protocols[i]; one entry per member): a mixed group, as during
	// KIP-848's online migration, where a consumer group holds members of
	// both protocols and is converted to a classic group when its last
	// consumer-protocol member leaves (the downgrade of KAFKA-20845).
	// franz-go and the Java client; MemberProtocol and UsesProtocol read
	// either field.
	Protocols []string `yaml:"protocols,omitempty" json:"protocols,omitempty"`
	// MetadataBytes is how many bytes of user data (a repeated,
	// compressible pattern: SubscriptionUserData) each classic member puts
	// in its subscription (ConsumerProtocol's UserData in JoinGroup's
	// metadata), 0..4,000,000 (default 0: none). The coordinator keeps
	// every classic member's subscription in the group's GroupMetadata
	// record, so this makes that record large, but compressible: with
	// offsets.topic.compression.codec set, a downgrade's record larger than
	// the __consumer_offsets message size uncompressed (KAFKA-20845).
	// Needs a classic member; the members of kgo and kafka-go then run the
	// range assignor (the user data replaces the assignor's own); franz-go
	// and kafka-go.
	MetadataBytes int `yaml:"metadata_bytes,omitempty" json:"metadata_bytes,omitempty"`
	// Commit is CommitAuto (default) or CommitManual.
	Commit string `yaml:"commit,omitempty" json:"commit,omitempty"`
	// CommitInterval is how often offsets are committed (default
	// DefaultGroupCommitInterval), in both modes; each mode also commits
	// before a revoke.
	CommitInterval Duration `yaml:"commit_interval,omitempty" json:"commit_interval,omitempty" zero:"unset"`
	// CommitEpoch is what leader epoch a manual commit carries with each
	// offset: CommitEpochNone (default: none, -1, as kchaos's members
	// always committed) or CommitEpochRecord (the epoch of the last record
	// delivered from the partition, as a KafkaConsumer's commit of its own
	// position does, KIP-320): with one, a consumer that starts from the
	// offset can detect a truncation below it; without, auto.offset.reset
	// decides (KAFKA-20507). franz-go only; each commit op records the
	// epochs its request carried (leader_epochs).
	CommitEpoch string `yaml:"commit_epoch,omitempty" json:"commit_epoch,omitempty"`
	// SessionTimeout is session.timeout.ms (default
	// DefaultGroupSessionTimeout): how long the coordinator waits for a
	// member's heartbeat before it removes it (classic), or the group's
	// session under the consumer protocol (a broker setting there:
	// group.consumer.session.timeout.ms; refused with protocol consumer).
	SessionTimeout Duration `yaml:"session_timeout,omitempty" json:"session_timeout,omitempty" zero:"unset"`
	// MaxPollInterval is max.poll.interval.ms (default
	// DefaultGroupMaxPollInterval): a member that does not poll for this
	// long leaves the group (the classic protocol's rebalance timeout).
	MaxPollInterval Duration `yaml:"max_poll_interval,omitempty" json:"max_poll_interval,omitempty" zero:"unset"`
	// Delivery is what the scenario declares the group promises:
	// histories.AtLeastOnce (default) or histories.ExactlyOnce. It changes
	// no client setting; run.json records it and the checker then counts
	// every redelivery against validity.
	Delivery string `yaml:"delivery,omitempty" json:"delivery,omitempty"`
}

// Enabled reports whether consumers subscribe as a group.
func (g *GroupConfig) Enabled() bool { return g.ID != "" }

func (g *GroupConfig) defaults() {
	if !g.Enabled() {
		return
	}
	if g.Members == 0 {
		g.Members = DefaultGroupMembers
	}
	if g.Protocol == "" && len(g.Protocols) == 0 {
		g.Protocol = histories.ProtocolClassic
	}
	if g.Commit == "" {
		g.Commit = CommitAuto
	}
	if g.CommitInterval == 0 {
		g.CommitInterval = Duration(DefaultGroupCommitInterval)
	}
	if g.CommitEpoch == "" {
		g.CommitEpoch = CommitEpochNone
	}
	if g.SessionTimeout == 0 {
		g.SessionTimeout = Duration(DefaultGroupSessionTimeout)
	}
	if g.MaxPollInterval == 0 {
		g.MaxPollInterval = Duration(DefaultGroupMaxPollInterval)
	}
	if g.Delivery == "" {
		g.Delivery = histories.AtLeastOnce
	}
}

// validate reports the group's problems, paths under "group".
func (c *Config) validateGroup() []FieldError {
	g := &c.Group
	var ps []FieldError
	add := func(path, format string, args ...any) {
		ps = append(ps, FieldError{Path: "group." + path, Msg: fmt.Sprintf(format, args...)})
	}
	if !g.Enabled() {
		if !g.isZero() {
			add("id", "missing: the other group fields need a group id")
		}
		return ps
	}
	if !topicName.MatchString(g.ID) {
		add("id", "%q: want 1-249 characters of [a-zA-Z0-9._-]", g.ID)
	}
	if g.Members < 1 || g.Members > 100 {
		add("members", "%d: want 1..100", g.Members)
	}
	ps = append(ps, g.validateProtocols(c.Driver)...)
	if g.Commit != CommitAuto && g.Commit != CommitManual {
		add("commit", "%q: want %s or %s", g.Commit, CommitAuto, CommitManual)
	}
	switch {
	case g.CommitEpoch != CommitEpochNone && g.CommitEpoch != CommitEpochRecord:
		add("commit_epoch", "%q: want %s or %s", g.CommitEpoch, CommitEpochNone, CommitEpochRecord)
	case g.CommitEpoch == CommitEpochRecord && g.Commit != CommitManual:
		add("commit_epoch", "%s: only with commit %s (an auto commit carries what the client puts in it)", g.CommitEpoch, CommitManual)
	case g.CommitEpoch == CommitEpochRecord && !capabilitiesOf(c.Driver).CommitLeaderEpoch:
		add("commit_epoch", "%s: driver %s only (kafka-go's OffsetCommit has no leader epoch; the Java driver commits offsets without one)", g.CommitEpoch, capableDrivers(takesCommitEpoch))
	}
	if d := g.CommitInterval.Std(); d < 10*time.Millisecond || d > 10*time.Minute {
		add("commit_interval", "%s: want 10ms..10m", d)
	}
	if d := g.SessionTimeout.Std(); d < time.Second || d > 10*time.Minute {
		add("session_timeout", "%s: want 1s..10m", d)
	}
	if g.UsesProtocol(histories.ProtocolConsumer) && g.SessionTimeout.Std() != DefaultGroupSessionTimeout {
		add("session_timeout", "the consumer protocol (KIP-848) takes the session timeout from the broker "+
			"(group.consumer.session.timeout.ms in cluster.broker_config), not from the client%s",
			cond(len(g.Protocols) > 0, "; a member of group.protocols runs it"))
	}
	if d := g.MaxPollInterval.Std(); d < time.Second || d > 30*time.Minute {
		add("max_poll_interval", "%s: want 1s..30m", d)
	}
	if g.Delivery != histories.AtLeastOnce && g.Delivery != histories.ExactlyOnce {
		add("delivery", "%q: want %s or %s", g.Delivery, histories.AtLeastOnce, histories.ExactlyOnce)
	}
	if c.Consumers != 0 {
		ps = append(ps, FieldError{Path: "consumers", Msg: fmt.Sprintf("%d: with a group, its members are the consumers (set group.members, and consumers 0)", c.Consumers)})
	}
	return ps
}

// GroupInfo is run.json's record of the group, nil without one.
func (c *Config) GroupInfo() *histories.GroupInfo {
	if !c.Group.Enabled() {
		return nil
	}
	return &histories.GroupInfo{ID: c.Group.ID, Members: c.Group.Members, Protocol: c.Group.ProtocolLabel(),
		Protocols: slices.Clone(c.Group.Protocols), Commit: c.Group.Commit, Delivery: c.Group.Delivery}
}

// MemberName is group member i's name: kept by the process that replaces
// a killed one, so that the history can tell a restart from a new member.
func MemberName(i int) string { return fmt.Sprintf("member-%d", i) }
