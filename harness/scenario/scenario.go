// Package scenario is kchaos's scenario file: a cluster, a topic, a
// workload, a nemesis schedule and a final phase, in YAML. It parses,
// fills defaults, applies --set overrides and validates with errors that
// name the field path. The built-in scenarios (docs/SCENARIOS.md)
// are embedded YAML files of the same format.
package scenario

import (
	"fmt"
	"strconv"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	// Every room of fault kinds, registered before a schedule is read.
	_ "github.com/kchaos/kchaos/nemesis/kinds"
	"github.com/kchaos/kchaos/workloads"
	// Every client driver package, registered before a workload is read.
	_ "github.com/kchaos/kchaos/workloads/drivers"
)

// Scenario is one run's whole description.
type Scenario struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	// Seed drives every seeded choice of the run (random schedules, random
	// targets); 0 means "pick one and record it".
	Seed     int64            `yaml:"seed,omitempty"`
	Cluster  ClusterSpec      `yaml:"cluster"`
	Topic    TopicSpec        `yaml:"topic"`
	Workload workloads.Config `yaml:"workload"`
	Nemesis  nemesis.Schedule `yaml:"nemesis,omitempty"`
	Final    FinalSpec        `yaml:"final"`
	// Expect documents the seed's expected outcome (docs/SCENARIOS.md), for
	// the reader and the report (run.json carries it). It never changes the
	// verdict.
	Expect string `yaml:"expect,omitempty"`
	// Expectation is the machine-checkable part of the expected outcome,
	// which a suite judges each cell by (harness/expect). It never changes
	// the run's own verdict either. Its YAML key stays `outcome:` (the
	// scenario files' compatibility); in Go, "outcome" names nothing else.
	Expectation expect.Spec `yaml:"outcome,omitempty"`
	// Jira names the Kafka bugs the scenario guards against (KAFKA-NNNNN)
	// and Docs links what explains it: shown on the run report, the suite
	// page and junit.xml.
	Jira []string `yaml:"jira,omitempty"`
	Docs []string `yaml:"docs,omitempty"`
	// Finding says what a regression cell proves beyond its checks: the
	// JIRA's own status (or that none exists) and the minimal steps.
	Finding *FindingSpec `yaml:"finding,omitempty"`
}

// Checks parses Expectation (Validate has reported its problems).
func (s *Scenario) Checks() []expect.Check {
	checks, _ := s.Expectation.Checks("outcome", KnownSetting)
	return checks
}

// ClusterSpec is the Kafka cluster.
type ClusterSpec struct {
	Kafka       string        `yaml:"kafka,omitempty"`
	Brokers     int           `yaml:"brokers,omitempty" zero:"unset" written:"the ssh backend counts the brokers of cluster.hosts"`
	Controllers int           `yaml:"controllers,omitempty" zero:"unset" written:"the ssh backend counts the controllers of cluster.hosts"`
	Racks       cluster.Racks `yaml:"racks,omitempty" written:"the ssh backend reads the racks of cluster.hosts"`
	// ELR: "on", "off", or "default" (the Kafka version's default).
	ELR string `yaml:"elr,omitempty"`
	// TransactionVersion: the transaction.version feature level at format
	// time, "0", "1" or "2" (KIP-890), or "default" (the release's: 2 on
	// 4.x). Kafka 4.0 and later.
	TransactionVersion string `yaml:"transaction_version,omitempty"`
	// ShareVersion: the share.version feature level at format time (share
	// groups, KIP-932: 1 turns them on), or "default" (the release's: 0
	// on 4.1, 1 on 4.2 and 4.3, 2 on 4.4). Kafka 4.1 and later.
	ShareVersion string `yaml:"share_version,omitempty"`
	// Quorum is the KRaft quorum's shape (cluster.Quorum owns its keys:
	// dynamic, auto_join, spare_controllers); unset, a static quorum.
	Quorum           *cluster.Quorum             `yaml:"quorum,omitempty"`
	BrokerConfig     map[string]string           `yaml:"broker_config,omitempty"`
	ControllerConfig map[string]string           `yaml:"controller_config,omitempty"`
	PerBroker        map[int32]map[string]string `yaml:"per_broker,omitempty"`
	// LogDirs is how many log dirs every broker has (log.dirs, JBOD;
	// default 1); LogDirSize ("64MiB") makes each dir after the first a
	// file system of that size, which fault disk-full can fill. Docker
	// backend only.
	LogDirs    int    `yaml:"log_dirs,omitempty" zero:"unset"`
	LogDirSize string `yaml:"log_dir_size,omitempty"`
	// Tiered turns on tiered storage (KIP-405): tiered.go.
	Tiered *TieredSpec `yaml:"tiered,omitempty"`
	// Backend is "docker" (also when empty) or "ssh": the operator's own hosts,
	// described by Hosts, SSH and Service, and confirmed by ConfirmOwner
	// (docs/ssh.md).
	Backend      string        `yaml:"backend,omitempty"`
	Hosts        []sshb.Host   `yaml:"hosts,omitempty"`
	SSH          *sshb.Auth    `yaml:"ssh,omitempty"`
	Service      *sshb.Service `yaml:"service,omitempty"`
	ConfirmOwner bool          `yaml:"confirm_owner,omitempty"`
	StateDir     string        `yaml:"state_dir,omitempty"`
}

// Backend names.
const (
	BackendDocker = "docker"
	BackendSSH    = "ssh"
)

// sshSpec is the ssh backend's part of the spec.
func (c ClusterSpec) sshSpec() *sshb.Spec {
	sp := &sshb.Spec{Hosts: c.Hosts, ConfirmOwner: c.ConfirmOwner, StateDir: c.StateDir}
	if c.SSH != nil {
		sp.SSH = *c.SSH
	}
	if c.Service != nil {
		sp.Service = *c.Service
	}
	sp.Defaults()
	return sp
}

// TopicSpec is the workload's topic.
type TopicSpec struct {
	Name              string            `yaml:"name,omitempty"`
	Partitions        int               `yaml:"partitions,omitempty" zero:"unset"`
	ReplicationFactor int               `yaml:"replication_factor,omitempty" zero:"unset"`
	Assignment        [][]int32         `yaml:"assignment,omitempty"`
	Configs           map[string]string `yaml:"configs,omitempty"`
	// LogDir places every replica of the topic in that log dir (an index
	// into cluster.log_dirs) before the workload starts.
	LogDir *int `yaml:"log_dir,omitempty"`
}

// FinalSpec is the phase after the faults: heal, wait for every partition
// to have a leader, read every partition to its end. The final heal always
// runs (the final read needs a leader on every partition, and a run must
// not leave faults behind); there is no switch to skip it (see Removed).
type FinalSpec struct {
	// RecoverTimeout bounds the final heal's wait for every broker to be
	// live and every partition to have a leader (default
	// nemesis.DefaultHealTimeout).
	RecoverTimeout workloads.Duration `yaml:"recover_timeout,omitempty" zero:"unset"`
	// ReadTimeout bounds the final read (default
	// workloads.DefaultFinalReadTimeout). It is the only final-read bound a
	// scenario has: workload.final_read_timeout is refused.
	ReadTimeout workloads.Duration `yaml:"read_timeout,omitempty" zero:"unset"`
	// AbortHanging is what an operator does once read_committed consumers
	// are stuck (KAFKA-20716): after the final read, every transaction that
	// holds a partition's last stable offset and that its coordinator does
	// not hold open (what `kafka-transactions.sh find-hanging` lists) is
	// aborted as `kafka-transactions.sh abort` does (the abort-hanging
	// fault, recorded as a nemesis op), and every partition is read again:
	// the history then shows the hang and what the recovery cost. It needs
	// a read_committed final read (transactions, or isolation
	// read_committed).
	AbortHanging bool `yaml:"abort_hanging,omitempty"`
}

// txnVersionDefault is cluster.transaction_version's "the release's level".
const txnVersionDefault = "default"

// ELR values.
const (
	elrOn      = "on"
	elrOff     = "off"
	elrDefault = "default"
)

// Defaults fills every unset field, so that the scenario as run (written
// into the run folder) says everything. Every default that a lower package
// also has is taken from it (cluster.Config.Defaults, workloads.Config
// Defaults, nemesis.DefaultHealTimeout), never restated here, so that a
// scenario that sets nothing runs with what those packages would pick.
func (s *Scenario) Defaults() {
	c := &s.Cluster
	if c.Backend == BackendSSH {
		// The hosts are the cluster: brokers and controllers are counted,
		// racks read from them.
		sp := c.sshSpec()
		c.Hosts = sp.Hosts
		c.Brokers, c.Controllers = sp.Brokers(), max(sp.Controllers(), 1)
		c.Racks = nil
		for _, h := range sp.Hosts {
			if h.Role == "broker" && h.Rack != "" {
				if c.Racks == nil {
					c.Racks = cluster.Racks{}
				}
				c.Racks[h.Rack] = append(c.Racks[h.Rack], h.ID)
			}
		}
	}
	cc := c.ClusterConfig()
	cc.Defaults()
	c.Kafka, c.Brokers, c.Controllers = cc.KafkaVersion, cc.Brokers, cc.Controllers
	c.LogDirs = cc.LogDirs
	if c.TransactionVersion == "" {
		c.TransactionVersion = txnVersionDefault
	}
	if c.ShareVersion == "" {
		c.ShareVersion = shareVersionDefault
	}
	if c.ELR == "" {
		c.ELR = elrDefault
	}
	t := &s.Topic
	// topic.name and workload.topic (topic.partitions and
	// workload.partitions) fill each other; what neither says comes from
	// workloads.Config.Defaults. Given both and different is refused.
	if t.Name == "" {
		t.Name = s.Workload.Topic
	}
	if s.Workload.Topic == "" {
		s.Workload.Topic = t.Name
	}
	if len(t.Assignment) > 0 {
		if t.Partitions == 0 {
			t.Partitions = len(t.Assignment)
		}
		if t.ReplicationFactor == 0 {
			t.ReplicationFactor = len(t.Assignment[0])
		}
	}
	if t.Partitions == 0 {
		t.Partitions = s.Workload.Partitions
	}
	if s.Workload.Partitions == 0 {
		s.Workload.Partitions = t.Partitions
	}
	s.Workload.Defaults()
	if t.Name == "" {
		t.Name = s.Workload.Topic
	}
	if t.Partitions == 0 {
		t.Partitions = s.Workload.Partitions
	}
	if t.ReplicationFactor == 0 {
		// No lower package has this default: the topic's replication is
		// the scenario's to choose (3 copies, or every broker if fewer).
		t.ReplicationFactor = min(3, c.Brokers)
	}
	if s.Final.RecoverTimeout == 0 {
		s.Final.RecoverTimeout = workloads.Duration(nemesis.DefaultHealTimeout)
	}
	if s.Final.ReadTimeout == 0 {
		s.Final.ReadTimeout = s.Workload.FinalReadTimeout
	}
	s.Workload.FinalReadTimeout = s.Final.ReadTimeout
	s.propagateSeed()
}

// SetSeed sets the run's seed (when the scenario left it 0) and hands it
// to a random schedule without a seed of its own. The harness calls it
// before the run, so that the seed recorded is the one that drove it.
func (s *Scenario) SetSeed(seed int64) {
	if s.Seed == 0 {
		s.Seed = seed
	}
	s.propagateSeed()
}

// propagateSeed makes seed and nemesis.random.seed one value: either
// given fills the other. (Both given and different is refused by
// Validate, since the random schedule would ignore the scenario's seed.)
func (s *Scenario) propagateSeed() {
	r := s.Nemesis.Random
	if r == nil {
		return
	}
	if s.Seed == 0 {
		s.Seed = r.Seed
	}
	if r.Seed == 0 {
		r.Seed = s.Seed
	}
}

// WorkloadConfig is the workload as run: the workload section with the
// final phase's read bound.
func (s *Scenario) WorkloadConfig() workloads.Config {
	w := s.Workload
	w.FinalReadTimeout = s.Final.ReadTimeout
	// The Java driver's client is the cluster's own release unless
	// workload.client_version names another.
	w.ClusterVersion = s.Cluster.Kafka
	return w
}

// WorkloadVersionProblem says which workload field Kafka release v rules
// out and why ("" when none): the KIP-848 group protocol before 4.0. The
// cluster's own version rules (ELR, transaction.version) are
// cluster.Config.Validate's.
func (s *Scenario) WorkloadVersionProblem(v cluster.Version) (path, problem string) {
	if g := &s.Workload.Group; g.UsesProtocol(histories.ProtocolConsumer) && !v.HasConsumerProtocol() {
		return "workload." + g.ProtocolPath(), fmt.Sprintf("consumer (KIP-848) needs Kafka 4.0 or later; %s has only the classic protocol", v)
	}
	return s.shareVersionProblem(v)
}

// ClusterConfig turns the spec into the cluster package's configuration.
func (c ClusterSpec) ClusterConfig() cluster.Config {
	cfg := cluster.Config{
		KafkaVersion: c.Kafka, Brokers: c.Brokers, Controllers: c.Controllers,
		Racks: c.Racks, BrokerConfig: c.BrokerConfig, ControllerConfig: c.ControllerConfig,
		PerBroker: c.PerBroker, Backend: c.Backend, Quorum: c.Quorum,
	}
	if c.Backend == BackendSSH {
		cfg.BackendSpec = c.sshSpec()
	}
	cfg.TransactionVersion, _ = c.txnVersion()
	cfg.ShareVersion, _ = c.shareVersion()
	cfg.LogDirs = c.LogDirs
	cfg.LogDirSizeBytes, _ = c.logDirSize()
	cfg.Tiered = c.Tiered.config()
	switch c.ELR {
	case elrOn:
		on := true
		cfg.ELR = &on
	case elrOff:
		off := false
		cfg.ELR = &off
	}
	return cfg
}

// logDirSize parses cluster.log_dir_size: 0 when unset.
func (c ClusterSpec) logDirSize() (int64, error) {
	if c.LogDirSize == "" {
		return 0, nil
	}
	n, err := cluster.ParseSize(c.LogDirSize)
	if err == nil && n == 0 {
		err = fmt.Errorf("%q: want a positive size (leave it unset for dirs on the host's disk)", c.LogDirSize)
	}
	return n, err
}

// txnVersion parses cluster.transaction_version: nil for the default.
func (c ClusterSpec) txnVersion() (*int16, error) {
	if c.TransactionVersion == "" || c.TransactionVersion == txnVersionDefault {
		return nil, nil
	}
	n, err := strconv.ParseInt(c.TransactionVersion, 10, 16)
	if err != nil || n < 0 || n > cluster.MaxTransactionVersion {
		return nil, fmt.Errorf("%q: want default or a level 0..%d", c.TransactionVersion, cluster.MaxTransactionVersion)
	}
	l := int16(n)
	return &l, nil
}

// TopicSpec is the topic as the harness creates it.
func (s *Scenario) TopicSpec() admin.TopicSpec {
	t := s.Topic
	spec := admin.TopicSpec{Name: t.Name, Assignment: t.AssignmentOrDefault(s.Cluster.Brokers), Configs: s.topicConfigs()}
	if ld := t.LogDir; ld != nil {
		if paths := cluster.LogDirPaths(max(s.Cluster.LogDirs, 1)); *ld >= 0 && *ld < len(paths) {
			spec.LogDir = paths[*ld]
		}
	}
	return spec
}

// AssignmentOrDefault returns the topic's replica lists: the explicit one, or
// partition p on brokers p, p+1, ... (mod brokers).
func (t TopicSpec) AssignmentOrDefault(brokers int) [][]int32 {
	if len(t.Assignment) > 0 {
		return t.Assignment
	}
	out := make([][]int32, t.Partitions)
	for p := range out {
		for r := 0; r < t.ReplicationFactor; r++ {
			out[p] = append(out[p], int32((p+r)%brokers))
		}
	}
	return out
}

// ApplyUserConfigs runs the scenario with a user's real settings: broker
// (server.properties) and topic configs replace the scenario's, except the
// keys kchaos must own to run at all (listeners, node ids, log dirs, the
// quorum, racks) and the failure-detection timeouts that make faults show
// within seconds. Those are dropped from the user's config and returned,
// so the report can list them; nothing else is changed.
func (s *Scenario) ApplyUserConfigs(broker, topic map[string]string) []string {
	overridden := cluster.OverriddenUserKeys(broker)
	drop := map[string]bool{}
	for _, k := range overridden {
		drop[k] = true
	}
	if len(broker) > 0 && s.Cluster.BrokerConfig == nil {
		s.Cluster.BrokerConfig = map[string]string{}
	}
	for k, v := range broker {
		if !drop[k] {
			s.Cluster.BrokerConfig[k] = v
		}
	}
	// The topic defaults the KRaft controller resolves from its own config
	// go to the controllers too, as in a cluster whose nodes share one
	// server.properties: otherwise the user's unclean.leader.election.enable
	// would reach the brokers only and never decide an election.
	for _, k := range cluster.ControllerTopicDefaults {
		if v, ok := broker[k]; ok {
			if s.Cluster.ControllerConfig == nil {
				s.Cluster.ControllerConfig = map[string]string{}
			}
			s.Cluster.ControllerConfig[k] = v
		}
	}
	if len(topic) > 0 && s.Topic.Configs == nil {
		s.Topic.Configs = map[string]string{}
	}
	for k, v := range topic {
		s.Topic.Configs[k] = v
	}
	return overridden
}

// logAppendTime: the topic's batches carry the broker's append time (its
// own message.timestamp.type, else the brokers' default), which the
// writeback power-loss model needs.
func (s *Scenario) logAppendTime() bool {
	v, ok := s.Topic.Configs["message.timestamp.type"]
	if !ok {
		v = s.Cluster.BrokerConfig["log.message.timestamp.type"]
	}
	return v == "LogAppendTime"
}

// Capabilities is what the chosen backend declares it can do: what a
// random mix (kchaos explore) may draw from.
func (c ClusterSpec) Capabilities() cluster.Caps { return c.capabilities() }

// BackendName is cluster.backend with its default.
func (c ClusterSpec) BackendName() string { return c.backendName() }

// backendName is cluster.backend with its default.
func (c ClusterSpec) backendName() string {
	if c.Backend == "" {
		return BackendDocker
	}
	return c.Backend
}

// capabilities is what the chosen backend declares it can do (an unknown
// backend, reported above, is held to nothing more).
func (c ClusterSpec) capabilities() cluster.Caps {
	switch c.backendName() {
	case BackendDocker:
		return docker.Capabilities
	case BackendSSH:
		return sshb.Capabilities
	}
	return cluster.AllCaps()
}
