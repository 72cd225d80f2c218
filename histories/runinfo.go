package histories

import (
	"encoding/json"
	"fmt"
	"github.com/kchaos/kchaos/internal/owned"
	"time"
)

// RunInfoFile is the name of the run description written beside
// history.jsonl in a run folder. It is an extension of the v1 contract:
// HISTORY.md says the checker learns whether the producer was idempotent
// "from the run's recorded configuration"; this is that record. A bare
// history file without it is checked as from a non-idempotent producer.
const RunInfoFile = "run.json"

// RunInfo describes how a history was made. The configs in it are the
// ones as applied, read back from the cluster after kchaos's overrides and
// defaults, so that the report states a run's starting settings from here
// alone (never by searching the scenario file, where a later live
// set-config step would pass for a starting value). Live changes are in
// the history, as the nemesis's set-config ops.
type RunInfo struct {
	Scenario string `json:"scenario,omitempty"`
	// Started is the wall-clock time of the history's time zero (the
	// recorder's start, UTC): what maps a time written elsewhere, such as
	// a broker's log line, onto the history's clock. Zero in run.json
	// files written before it was recorded.
	Started time.Time `json:"started,omitzero"`
	// Description and Expect are the scenario's own words (documentation;
	// Expect never changes the verdict).
	Description string `json:"description,omitempty"`
	Expect      string `json:"expect,omitempty"`
	// Jira and Docs are the Kafka bugs the scenario guards against and
	// the documents that explain it (refs.go).
	Jira []string `json:"jira,omitempty"`
	Docs []string `json:"docs,omitempty"`
	// Finding is a regression cell's JIRA status and minimal steps.
	Finding      *Finding `json:"finding,omitempty"`
	Seed         int64    `json:"seed,omitempty"`
	KafkaVersion string   `json:"kafka_version,omitempty"`
	ELR          bool     `json:"elr,omitempty"`
	// TransactionVersion is the cluster's finalized transaction.version
	// feature level at the start of the run (0: unknown, or before 4.0).
	TransactionVersion int `json:"transaction_version,omitempty"`
	// MetadataVersion is the cluster's finalized metadata.version feature
	// level when it was ready, before the workload (0: unknown). A fresh
	// cluster has its release's; KAFKA-20839 leaves a cluster whose quorum
	// changed leader during its first activation at 1 (3.0-IV1).
	MetadataVersion int    `json:"metadata_version,omitempty"`
	Topic           string `json:"topic,omitempty"`
	Partitions      int    `json:"partitions,omitempty"`
	Replication     int    `json:"replication_factor,omitempty"`
	// TopicConfigs is every config of the topic as the brokers applied it
	// at creation (DescribeConfigs): the ones set on the topic and those it
	// inherits or defaults. TopicConfigSources says which, per key:
	// ConfigSourceTopic, ConfigSourceBroker or ConfigSourceDefault. A
	// run.json without sources (older runs) lists only the topic's own.
	TopicConfigs       map[string]string `json:"topic_configs,omitempty"`
	TopicConfigSources map[string]string `json:"topic_config_sources,omitempty"`
	// BrokerConfigs and ControllerConfigs are each node's server.properties
	// as the node read it, by node id.
	BrokerConfigs     map[int32]map[string]string `json:"broker_configs,omitempty"`
	ControllerConfigs map[int32]map[string]string `json:"controller_configs,omitempty"`
	Producer          ProducerInfo                `json:"producer"`
	// Group is the workload's consumer group, when its consumers
	// subscribe as one (groups.go).
	Group *GroupInfo `json:"group,omitempty"`
	// Shares is the workload's share group (KIP-932), when it has one.
	Shares      *ShareInfo   `json:"shares,omitempty"`
	Brokers     []BrokerInfo `json:"brokers,omitempty"`
	Controllers []int32      `json:"controllers,omitempty"`
	// Cluster is the cluster the run ran on: the one started for it, or
	// one reused from the run before (kchaos explore), which a finding
	// must say (its reproduction then reruns on a fresh cluster).
	Cluster *ClusterUse `json:"cluster,omitempty"`
}

// ClusterUse is which cluster a run ran on.
type ClusterUse struct {
	// RunID is the cluster's own id (its containers' label, its data
	// folder): the id of the run that started it.
	RunID string `json:"run_id"`
	// Containers is each node's container id (Docker), by node id.
	Containers map[int32]string `json:"containers,omitempty"`
	// ReusedFrom is the run folder (its name) of the run before this one
	// on the same cluster; empty when the cluster started for this run.
	ReusedFrom string `json:"reused_from,omitempty"`
	// RunsBefore is how many runs the cluster ran before this one.
	RunsBefore int `json:"runs_before,omitempty"`
}

// Reused reports whether the run ran on a cluster an earlier run used.
func (u *ClusterUse) Reused() bool { return u != nil && u.ReusedFrom != "" }

// Sources of a topic config value (RunInfo.TopicConfigSources).
const (
	ConfigSourceTopic   = "topic"   // set on the topic
	ConfigSourceBroker  = "broker"  // inherited from the brokers' config
	ConfigSourceDefault = "default" // Kafka's built-in default
)

// ProducerInfo is the producer's durability settings.
type ProducerInfo struct {
	Driver     string `json:"driver,omitempty"`
	Acks       string `json:"acks,omitempty"` // "0", "1" or "all"
	Idempotent bool   `json:"idempotent"`
	Retries    int    `json:"retries"`
	// Transactional: the workload's producers are transactional (txn ops;
	// every transactional producer is idempotent).
	Transactional bool `json:"transactional,omitempty"`
	// TransactionTimeoutMS is the transactional producers'
	// transaction.timeout.ms: how long the coordinator lets a transaction
	// stay open before it aborts it (the txn-hanging check's bound).
	TransactionTimeoutMS int64 `json:"transaction_timeout_ms,omitempty"`
	// RequestTimeoutMS is the producers' request timeout (the scenario's
	// workload.request_timeout, defaulted): how long a send stuck on the
	// leader waits, which bounds derived from a run's settings need
	// (harness/expect's derived metrics). 0 in run.json files written
	// before it was recorded.
	RequestTimeoutMS int64 `json:"request_timeout_ms,omitempty"`
	// Props and ConsumerProps are the Java client properties driver java
	// passed verbatim to its producers and consumers (a service's
	// --producer-config and --consumer-config, beside the settings above
	// that kchaos maps for every driver): recorded so that a run says
	// which client settings it ran under.
	Props         map[string]string `json:"props,omitempty"`
	ConsumerProps map[string]string `json:"consumer_props,omitempty"`
}

// BrokerInfo names a broker and its rack.
type BrokerInfo struct {
	ID      int32  `json:"id"`
	Rack    string `json:"rack,omitempty"`
	Address string `json:"address,omitempty"`
}

// WriteRunInfo writes info as indented JSON to path.
func WriteRunInfo(path string, info RunInfo) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return owned.Write(path, append(b, '\n'))
}

// ReadRunInfo reads a run.json.
func ReadRunInfo(path string) (RunInfo, error) {
	var info RunInfo
	b, err := ReadRegular(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("%s: %v", path, err)
	}
	return info, nil
}
