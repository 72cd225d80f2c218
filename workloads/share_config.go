package workloads

import (
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// Share groups (KIP-932, workload.shares): N members of one share group
// consume the scenario's topic beside the producers, each record under a
// time-limited acquisition lock, acknowledged one by one.
//
// What Kafka provides, as read from its source and jars (4.1.2, 4.2.2,
// 4.4.0 in kchaos's images) and franz-go v1.22.3:
//   - Share groups need the share.version feature at 1 or more. A new
//     cluster is formatted with share.version=0 on 4.1 (preview: enable it
//     with kafka-storage --feature share.version=1 or kafka-features
//     upgrade), 1 on 4.2 and 4.3, 2 on 4.4 (kafka-storage version-mapping).
//     4.0 had an early-access version that cannot be upgraded: kchaos
//     does not run share groups there (cluster.Config.Validate).
//   - The broker's group.share.record.lock.duration.ms (default 30000,
//     bounded by group.share.min/max.record.lock.duration.ms, 15000 and
//     60000) is how long a member holds a record it was delivered;
//     group.share.delivery.count.limit (default 5, 2..10) is how many
//     deliveries a record gets before Kafka archives it. The group configs
//     share.record.lock.duration.ms (4.1+) and share.delivery.count.limit
//     (4.3+) override them per group. The workload reads the values the
//     brokers run with (DescribeConfigs) and records them in each
//     share-subscribe, so the checker judges by what Kafka used.
//   - share.auto.offset.reset (a group config, default latest) decides
//     where a new share group starts: the workload sets it to earliest
//     (IncrementalAlterConfigs on the GROUP resource, as franz-go's
//     kgo.ShareGroup documents) before any member joins, so every record
//     of the run is the group's to deliver.
//   - A member acks with kgo.Record.Ack (accept, release, reject; renew,
//     KIP-1222, needs 4.2+); kgo.Client.FlushAcks sends them and waits for
//     the kgo.ShareAckCallback, which reports one result per partition.
//     The broker ties a share session to one connection and releases what
//     a member holds when that connection closes.
//   - kadm.Client.DescribeShareGroupOffsets reports each share-partition's
//     start offset (SPSO): every record below it is in a final state.
//     Kafka reports no per-record states to clients.

// Defaults of workload.shares.
const (
	DefaultShareMembers    = 2
	DefaultShareProcessing = 20 * time.Millisecond
	DefaultShareDrain      = 60 * time.Second
	DefaultShareMaxRecords = 50
)

// maxShareAckWeight bounds each weight of a ShareAckMix: weights are
// proportions, and a larger one only risks their sum overflowing.
const maxShareAckWeight = 1_000_000

// ShareAckMix is the seeded mix of acknowledgements: weights of accept,
// release and reject (default all accept).
type ShareAckMix struct {
	Accept  int `yaml:"accept,omitempty" json:"accept,omitempty"`
	Release int `yaml:"release,omitempty" json:"release,omitempty"`
	Reject  int `yaml:"reject,omitempty" json:"reject,omitempty"`
}

// ShareConfig is workload.shares; the zero value (no group) is off.
type ShareConfig struct {
	// Group is the share group id; empty: no share group.
	Group string `yaml:"group" json:"group"`
	// Members is the number of share consumers (default
	// DefaultShareMembers).
	Members int `yaml:"members,omitempty" json:"members,omitempty" zero:"unset"`
	// Ack is the mix of acknowledgements, drawn per record from Seed.
	Ack  ShareAckMix `yaml:"ack,omitempty" json:"ack,omitempty"`
	Seed uint64      `yaml:"seed,omitempty" json:"seed,omitempty"`
	// Processing is how long a member works on each poll's records before
	// it acks them (default DefaultShareProcessing).
	Processing Duration `yaml:"processing,omitempty" json:"processing,omitempty" zero:"unset"`
	// Renew makes a member renew its locks (AckRenew, Kafka 4.2+) before
	// it processes, then process a second time: work longer than a lock
	// that stays held.
	Renew bool `yaml:"renew,omitempty" json:"renew,omitempty"`
	// Drain bounds the drain after the final heal (default
	// DefaultShareDrain): members go on until every record below the log
	// end reached a final state, or this passes.
	Drain Duration `yaml:"drain,omitempty" json:"drain,omitempty" zero:"unset"`
	// MaxRecords is the most records a poll asks for (default
	// DefaultShareMaxRecords).
	MaxRecords int `yaml:"max_records,omitempty" json:"max_records,omitempty" zero:"unset"`
	// AckMode is the Java client's share.acknowledgement.mode: explicit
	// (the default: every record acknowledged with the status the mix
	// draws) or implicit (the client accepts what a poll delivered at the
	// next commit: the mix must be accept only, without renew). franz-go
	// acknowledges explicitly only.
	AckMode string `yaml:"ack_mode,omitempty" json:"ack_mode,omitempty"`
}

// Acknowledgement modes (ShareConfig.AckMode).
const (
	ShareAckExplicit = "explicit"
	ShareAckImplicit = "implicit"
)

// AckModeOrDefault is AckMode with its default. Exported for the driver
// packages (workloads/java), whose share consumer is set to it.
func (s *ShareConfig) AckModeOrDefault() string {
	if s.AckMode == "" {
		return ShareAckExplicit
	}
	return s.AckMode
}

// Enabled reports whether the workload has a share group.
func (s *ShareConfig) Enabled() bool { return s.Group != "" }

func (s *ShareConfig) defaults() {
	if !s.Enabled() {
		return
	}
	if s.Members == 0 {
		s.Members = DefaultShareMembers
	}
	if s.Ack == (ShareAckMix{}) {
		s.Ack.Accept = 1
	}
	if s.Processing == 0 {
		s.Processing = Duration(DefaultShareProcessing)
	}
	if s.Drain == 0 {
		s.Drain = Duration(DefaultShareDrain)
	}
	if s.MaxRecords == 0 {
		s.MaxRecords = DefaultShareMaxRecords
	}
}

// validateShares reports the share group's problems, paths under "shares".
func (c *Config) validateShares() []FieldError {
	s := &c.Shares
	var ps []FieldError
	add := func(path, format string, args ...any) {
		ps = append(ps, FieldError{Path: "shares." + path, Msg: fmt.Sprintf(format, args...)})
	}
	if !s.Enabled() {
		if *s != (ShareConfig{}) {
			add("group", "missing: the other shares fields need a share group id")
		}
		return ps
	}
	if !topicName.MatchString(s.Group) {
		add("group", "%q: want 1-249 characters of [a-zA-Z0-9._-]", s.Group)
	}
	if s.Members < 1 || s.Members > 100 {
		add("members", "%d: want 1..100", s.Members)
	}
	a := s.Ack
	if w := []int{a.Accept, a.Release, a.Reject}; slices.Min(w) < 0 || slices.Max(w) > maxShareAckWeight || a.Accept+a.Release+a.Reject == 0 {
		add("ack", "accept %d, release %d, reject %d: want weights 0..%d, not all 0", a.Accept, a.Release, a.Reject, maxShareAckWeight)
	}
	if d := s.Processing.Std(); d < 0 || d > 10*time.Minute {
		add("processing", "%s: want 0..10m", d)
	}
	if d := s.Drain.Std(); d < time.Second || d > 30*time.Minute {
		add("drain", "%s: want 1s..30m", d)
	}
	if s.MaxRecords < 1 || s.MaxRecords > 10000 {
		add("max_records", "%d: want 1..10000", s.MaxRecords)
	}
	switch s.AckMode {
	case "", ShareAckExplicit:
	case ShareAckImplicit:
		if a.Release != 0 || a.Reject != 0 || s.Renew {
			add("ack_mode", "implicit: the client accepts every record it delivered, so the ack mix must be accept only and renew off (accept %d, release %d, reject %d, renew %v)", a.Accept, a.Release, a.Reject, s.Renew)
		}
		if !capabilitiesOf(c.Driver).ImplicitShareAck {
			add("ack_mode", "implicit: a mode of the Java client's KafkaShareConsumer (driver %s); driver %q acknowledges explicitly", capableDrivers(takesImplicitShareAck), c.Driver)
		}
	default:
		add("ack_mode", "%q: want %s or %s", s.AckMode, ShareAckExplicit, ShareAckImplicit)
	}
	if d, ok := DriverFor(c.Driver); ok {
		if _, share := d.(ShareDriver); !share {
			ps = append(ps, FieldError{Path: "driver", Msg: fmt.Sprintf("%q: share groups need driver %s (%s has no share consumer)", c.Driver, driversWith(isShareDriver), c.Driver)})
		}
	}
	if c.Group.Enabled() {
		add("group", "%q beside workload.group %q: one kind of group per run", s.Group, c.Group.ID)
	}
	if c.Transactions.Enabled {
		add("group", "share groups read read_uncommitted here: not with workload.transactions")
	}
	return ps
}

// ShareInfo is run.json's record of the share group, nil without one
// (the lock duration and delivery limit the brokers ran with are in the
// history's share-subscribe ops: the workload learns them at its start).
func (c *Config) ShareInfo() *histories.ShareInfo {
	if !c.Shares.Enabled() {
		return nil
	}
	return &histories.ShareInfo{Group: c.Shares.Group, Members: c.Shares.Members}
}

// ShareMemberName is share member i's name, kept by the process that
// replaces a killed one.
func ShareMemberName(i int) string { return fmt.Sprintf("share-%d", i) }
