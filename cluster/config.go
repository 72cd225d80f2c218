package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// DefaultKafkaVersion is the newest release kchaos knows (the last of
// Releases); a test keeps the two together.
const DefaultKafkaVersion = "4.4.0"

// ControllerIDBase is the node id of the first controller. Controllers get
// ids apart from brokers (0..N-1) so that a history's node ids are
// unambiguous.
const ControllerIDBase = 1000

// Ports of every node's listeners.
const (
	BrokerPort     = 9092
	ControllerPort = 9093
)

// Racks maps a rack name to the broker ids in it, e.g. a: [0,1], b: [2].
type Racks map[string][]int32

// ParseRacks parses "a=0,1;b=2" (also "a:0,1 b:2").
func ParseRacks(s string) (Racks, error) {
	r := Racks{}
	s = strings.TrimSpace(s)
	if s == "" {
		return r, nil
	}
	groups := strings.FieldsFunc(s, func(c rune) bool { return c == ';' || c == ' ' })
	for _, g := range groups {
		name, ids, ok := strings.Cut(g, "=")
		if !ok {
			name, ids, ok = strings.Cut(g, ":")
		}
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("racks: %q: want rack=id,id (e.g. a=0,1;b=2)", g)
		}
		name = strings.TrimSpace(name)
		if _, dup := r[name]; dup {
			return nil, fmt.Errorf("racks: rack %q given twice", name)
		}
		for _, f := range strings.Split(ids, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			id, err := strconv.ParseInt(f, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("racks: rack %q: broker id %q is not a number", name, f)
			}
			r[name] = append(r[name], int32(id))
		}
		if len(r[name]) == 0 {
			return nil, fmt.Errorf("racks: rack %q has no brokers", name)
		}
	}
	return r, nil
}

// RackOf returns each broker's rack.
func (r Racks) RackOf() map[int32]string {
	out := map[int32]string{}
	for name, ids := range r {
		for _, id := range ids {
			out[id] = name
		}
	}
	return out
}

// names returns the rack names in order.
func (r Racks) names() []string {
	return slices.Sorted(maps.Keys(r))
}

// Validate checks that every broker is in at most one rack and that every
// id names a broker of a cluster of n brokers. Brokers in no rack are
// allowed only when no rack is given at all.
func (r Racks) Validate(n int) error {
	if len(r) == 0 {
		return nil
	}
	seen := map[int32]string{}
	for _, name := range r.names() {
		for _, id := range r[name] {
			if id < 0 || int(id) >= n {
				return fmt.Errorf("racks: rack %q: broker %d does not exist (brokers are 0..%d)", name, id, n-1)
			}
			if other, dup := seen[id]; dup {
				return fmt.Errorf("racks: broker %d is in racks %q and %q", id, other, name)
			}
			seen[id] = name
		}
	}
	for id := int32(0); int(id) < n; id++ {
		if _, ok := seen[id]; !ok {
			return fmt.Errorf("racks: broker %d is in no rack", id)
		}
	}
	return nil
}

// String renders racks as ParseRacks reads them.
func (r Racks) String() string {
	var parts []string
	for _, n := range r.names() {
		ids := make([]string, len(r[n]))
		for i, id := range r[n] {
			ids[i] = strconv.Itoa(int(id))
		}
		parts = append(parts, n+"="+strings.Join(ids, ","))
	}
	return strings.Join(parts, ";")
}

// Config describes a cluster. The zero value, after Defaults, is 1
// controller and 3 brokers of DefaultKafkaVersion.
type Config struct {
	RunID        string // label value; generated when empty
	KafkaVersion string
	Image        string // default kchaos/kafka:<KafkaVersion>
	Brokers      int
	Controllers  int // 1 or 3
	Racks        Racks
	// ELR turns Eligible Leader Replicas on or off at format time; nil keeps
	// the Kafka version's default (off in 4.0, on for new 4.1+ clusters,
	// absent before 4.0).
	ELR *bool
	// TransactionVersion sets the transaction.version feature level at
	// format time (0, 1 or 2; KIP-890's second phase is 2); nil keeps the
	// release's default. Kafka 4.0 and later.
	TransactionVersion *int16
	// ShareVersion sets the share.version feature level at format time
	// (share groups, KIP-932: 1 turns them on); nil keeps the release's
	// default (ShareVersionDefault). Kafka 4.1 and later.
	ShareVersion *int16
	// Quorum is the KRaft quorum's shape (quorum.go): nil or not dynamic
	// is a static quorum of the Controllers.
	Quorum *Quorum
	// BrokerConfig applies to every broker, PerBroker to one; ControllerConfig
	// to every controller. They override the defaults of DefaultBrokerConfig.
	BrokerConfig     map[string]string
	PerBroker        map[int32]map[string]string
	ControllerConfig map[string]string
	// Tiered, when set, turns on tiered storage (tiered.go).
	Tiered *Tiered
	// LogDirs is how many log dirs each broker has (log.dirs, JBOD; default
	// 1): LogDirPaths. Controllers keep one. With two or more, a failed dir
	// other than the first takes only its replicas offline (KIP-858); the
	// first holds the metadata log, whose failure halts the broker.
	LogDirs int
	// LogDirSizeBytes, when set, bounds every broker's log dirs after the
	// first: each is a file system of its own of that size (the Docker
	// backend mounts a tmpfs), which the disk-full fault fills. 0: every
	// dir shares the host's disk.
	LogDirSizeBytes int64
	// Subnet of the run's Docker network (e.g. 10.231.7.0/24); chosen from
	// 10.231.0.0/16 when empty. Docker backend only, like Image, DataRoot
	// and KeepData.
	Subnet   string
	DataRoot string // host folder for node data; default /var/tmp/kchaos
	LogDir   string // where Teardown copies each node's log; none when empty
	BrokerHeapMB,
	ControllerHeapMB int
	// KeepData leaves the data folders after Teardown (for inspection).
	KeepData bool
	// Backend names the backend that runs the cluster: "" or "docker"
	// (containers, the default), "ssh" (the operator's hosts). BackendSpec
	// is that backend's own settings (for ssh, a *ssh.Spec); package
	// cluster never reads it.
	Backend     string
	BackendSpec any
	// InterBrokerVia, when set, routes the brokers' inter-broker traffic
	// through the addresses it gives (interbroker.go); backends with
	// CapInterBrokerRoute only.
	InterBrokerVia InterBrokerVia `json:"-"`
	// DuringStart, when set, runs while the backend starts the cluster
	// (backends with CapBootstrap: bootstrap.go). It is no setting of the
	// cluster's: a cluster started with it is never kept for another run.
	DuringStart DuringStart `json:"-"`
}

// Defaults fills unset fields.
func (c *Config) Defaults() {
	if c.KafkaVersion == "" {
		c.KafkaVersion = DefaultKafkaVersion
	}
	// "4.1.x" and "latest" run as the release they name; a version
	// outside the grammar stays, for Validate to refuse.
	if r, err := ResolveVersion(c.KafkaVersion); err == nil {
		c.KafkaVersion = r
	}
	if c.Image == "" {
		c.Image = Image(c.KafkaVersion)
	}
	if c.Brokers == 0 {
		c.Brokers = 3
	}
	if c.Controllers == 0 {
		c.Controllers = 1
	}
	if c.LogDirs == 0 {
		c.LogDirs = 1
	}
	if c.DataRoot == "" {
		c.DataRoot = "/var/tmp/kchaos"
	}
	if c.BrokerHeapMB == 0 {
		c.BrokerHeapMB = 448
	}
	if c.ControllerHeapMB == 0 {
		c.ControllerHeapMB = 256
	}
	if c.Tiered != nil {
		c.Tiered.Defaults()
	}
}

// Validate reports the first problem with c, naming the field.
func (c *Config) Validate() error {
	if c.Brokers < 1 || c.Brokers > 9 {
		return fmt.Errorf("brokers: %d: want 1..9", c.Brokers)
	}
	if c.Controllers != 1 && c.Controllers != 3 {
		return fmt.Errorf("controllers: %d: want 1 or 3", c.Controllers)
	}
	if err := c.Racks.Validate(c.Brokers); err != nil {
		return err
	}
	resolved, err := ResolveVersion(c.KafkaVersion)
	if err != nil {
		return fmt.Errorf("kafka: %v", err)
	}
	v, _ := ParseVersion(resolved)
	if c.ELR != nil && *c.ELR && !v.HasELR() {
		return fmt.Errorf("elr: Eligible Leader Replicas (eligible.leader.replicas.version) needs Kafka 4.0 or later; %s does not have it", c.KafkaVersion)
	}
	if t := c.TransactionVersion; t != nil {
		if !v.HasTransactionVersion() {
			return fmt.Errorf("transaction_version: the transaction.version feature (KIP-890) needs Kafka 4.0 or later; %s does not have it", c.KafkaVersion)
		}
		if *t < 0 || *t > MaxTransactionVersion {
			return fmt.Errorf("transaction_version: %d: want 0..%d", *t, MaxTransactionVersion)
		}
	}
	if t := c.ShareVersion; t != nil {
		if !v.HasShareGroups() {
			return fmt.Errorf("share_version: share groups (KIP-932) need Kafka 4.1 or later (4.0's early access cannot be upgraded); %s does not have them", c.KafkaVersion)
		}
		if *t < 0 || *t > v.maxShareVersion() {
			return fmt.Errorf("share_version: %d: want 0..%d on Kafka %s", *t, v.maxShareVersion(), c.KafkaVersion)
		}
	}
	if c.LogDirs < 1 || c.LogDirs > maxLogDirs {
		return fmt.Errorf("log_dirs: %d: want 1..%d", c.LogDirs, maxLogDirs)
	}
	if c.LogDirSizeBytes != 0 {
		if c.LogDirs < 2 {
			return fmt.Errorf("log_dir_size: bounds the log dirs after the first, and there is only one (set log_dirs: 2 or more)")
		}
		if c.LogDirSizeBytes < minLogDirSize {
			return fmt.Errorf("log_dir_size: %s: want at least %s", FormatSize(c.LogDirSizeBytes), FormatSize(minLogDirSize))
		}
	}
	if err := c.Quorum.validate(v); err != nil {
		return err
	}
	for id := range c.PerBroker {
		if id < 0 || int(id) >= c.Brokers {
			return fmt.Errorf("per-broker config: broker %d does not exist", id)
		}
	}
	if c.Tiered != nil {
		return c.Tiered.Validate(c)
	}
	return nil
}

// Version is a Kafka release number.
type Version struct{ Major, Minor, Patch int }

// Less orders versions.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// String is "4.1.2".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// HasELR reports whether the release has the eligible.leader.replicas.version feature.
func (v Version) HasELR() bool { return !v.Less(Version{4, 0, 0}) }

// HasConsumerProtocol reports whether consumer groups can use the KIP-848
// `consumer` rebalance protocol: generally available and on by default in
// the group coordinator from 4.0 (Kafka 4.0 upgrade notes: "the new
// consumer rebalance protocol is generally available"); 3.9 has only the
// classic protocol for clients.
func (v Version) HasConsumerProtocol() bool { return !v.Less(Version{4, 0, 0}) }

// HasTransactionVersion reports whether transaction.version levels above 0
// exist (TransactionVersion.TV_1 and TV_2 need metadata version
// IBP_4_0_IV2: server-common TransactionVersion.java).
func (v Version) HasTransactionVersion() bool { return !v.Less(Version{4, 0, 0}) }

// TransactionVersionDefault is the release's level for new clusters: 2 on
// every 4.x release kchaos knows (`StorageTool version-mapping` on 4.0.2,
// 4.1.2 and 4.4.0 prints transaction.version=2), 0 before 4.0.
func (v Version) TransactionVersionDefault() int16 {
	if v.HasTransactionVersion() {
		return MaxTransactionVersion
	}
	return 0
}

// HasShareGroups reports whether share groups (KIP-932) can run: from
// 4.1, as a preview behind share.version=1, production-ready from 4.2.
// 4.0 shipped an early access (group.share.enable) that cannot be
// upgraded: kchaos does not run share groups there.
func (v Version) HasShareGroups() bool { return !v.Less(Version{4, 1, 0}) }

// ShareVersionDefault is the share.version level a new cluster of the
// release is formatted with (kafka-storage version-mapping on kchaos's
// images): 0 on 4.1 (share groups off), 1 on 4.2 and 4.3, 2 on 4.4; 0
// before 4.1.
func (v Version) ShareVersionDefault() int16 {
	switch {
	case !v.Less(Version{4, 4, 0}):
		return 2
	case !v.Less(Version{4, 2, 0}):
		return 1
	}
	return 0
}

// maxShareVersion is the highest share.version the release formats with:
// 1 on 4.1 to 4.3 (kafka-storage feature-dependencies: "Feature level 2
// is not supported for feature share.version" on 4.1 and 4.2), 2 from
// 4.4.
func (v Version) maxShareVersion() int16 {
	if !v.Less(Version{4, 4, 0}) {
		return 2
	}
	if v.HasShareGroups() {
		return 1
	}
	return 0
}

// MaxTransactionVersion is the highest transaction.version level Kafka
// knows (TV_2: epoch bump per transaction, KIP-890 part 2).
const MaxTransactionVersion = 2

// ELRDefault is the release's default for new clusters.
func (v Version) ELRDefault() bool { return !v.Less(Version{4, 1, 0}) }
