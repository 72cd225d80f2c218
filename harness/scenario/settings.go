package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/workloads"
)

// SettingPaths maps the short setting names that matrices vary, suites
// report and expectations condition on (`when: {unclean: "true"}`) to the
// scenario paths they stand for. A name that is not listed is a scenario
// path itself (as --set takes it).
var SettingPaths = map[string][]string{
	// unclean=false means never: also in the live set-config steps of a
	// story such as s2's, which switches it on while the partition is
	// offline.
	"unclean": {"topic.configs.unclean.leader.election.enable",
		"nemesis.steps[*].config.unclean.leader.election.enable"},
	"elr": {"cluster.elr"},
	// txn.version: the transaction.version feature (KIP-890), 4.0+.
	"txn.version": {"cluster.transaction_version"},
	// share.version: the share.version feature (share groups, KIP-932),
	// 4.1+.
	"share.version": {"cluster.share_version"},
	"acks":          {"workload.acks"},
	// With ELR on, min.insync.replicas is a cluster-level setting the
	// controller enforces: set it on the topic, the brokers and the
	// controllers alike, so each value means one thing.
	"min.insync": {"topic.configs.min.insync.replicas", "cluster.broker_config.min.insync.replicas",
		"cluster.controller_config.min.insync.replicas"},
	"kafka":      {"cluster.kafka"},
	"idempotent": {"workload.idempotent"},
	// group.protocol: a consumer group's rebalance protocol, classic or
	// consumer (KIP-848); some outcomes hold under one only.
	"group.protocol": {"workload.group.protocol"},
	// commit_epoch: whether a group's manual commits carry the leader
	// epoch (record) or none (KAFKA-20507).
	"commit_epoch": {"workload.group.commit_epoch"},
	// driver: the client library (franz, kafka-go, java: Apache Kafka's
	// own); what a group or a producer does under a fault is partly the
	// client's.
	"driver": {"workload.driver"},
	// client_version: the Java client's release against the cluster's
	// (an old client against new brokers, as clusters are upgraded).
	"client_version": {"workload.client_version"},
}

// settingNames is the names of SettingPaths, sorted.
func settingNames() []string {
	return slices.Sorted(maps.Keys(SettingPaths))
}

// KnownSetting says why name is not a setting Settings resolves, or nil.
func KnownSetting(name string) error {
	if _, ok := SettingPaths[name]; ok {
		return nil
	}
	return fmt.Errorf("unknown setting %q: want one of %s", name, strings.Join(settingNames(), ", "))
}

const uncleanKey = "unclean.leader.election.enable"

// Settings resolves the short settings of a scenario with its defaults
// filled, as the run will have them:
//   - unclean: "true" when the topic starts with unclean election on (its
//     own config, else the controllers' default, which is the one the KRaft
//     controller elects by) or a
//     live set-config step turns it on (the story allows an unclean
//     election at some point), else "false" (Kafka's default);
//   - elr: "true" or "false", cluster.elr "default" resolved by the Kafka
//     version's default for new clusters;
//   - min.insync: the topic's value, else the brokers', else Kafka's 1;
//   - txn.version: the transaction.version level the cluster is formatted
//     with, "default" resolved by the release (2 on 4.x, 0 before);
//   - acks, idempotent, kafka, driver: as the workload and cluster have
//     them;
//   - group.protocol: the consumer group's protocol (classic by default;
//     "mixed" when group.protocols gives its members both), "" without a
//     group.
func (s *Scenario) Settings() map[string]string {
	// A topic config overrides the default, and the default that decides
	// is the controller's (cluster.ControllerTopicDefaults), not the
	// brokers'.
	uncleanCfg, ok := s.Topic.Configs[uncleanKey]
	if !ok {
		uncleanCfg = s.Cluster.ControllerConfig[uncleanKey]
	}
	// Values as Kafka reads them: trimmed, booleans in any case
	// (KafkaConfigRules has refused what Kafka would not read).
	unclean := strings.EqualFold(strings.TrimSpace(uncleanCfg), "true")
	for _, st := range s.Nemesis.Steps {
		if sc, ok := st.Params.(nemesis.ConfigChanger); ok {
			if v := sc.ConfigChanges()[uncleanKey]; v != nil && strings.EqualFold(strings.TrimSpace(*v), "true") {
				unclean = true
			}
		}
	}
	minISR := strings.TrimSpace(s.Topic.Configs["min.insync.replicas"])
	if minISR == "" {
		minISR = strings.TrimSpace(s.Cluster.BrokerConfig["min.insync.replicas"])
	}
	if minISR == "" {
		minISR = "1"
	}
	return map[string]string{
		"unclean":       fmt.Sprint(unclean),
		"elr":           fmt.Sprint(s.elrOn()),
		"min.insync":    minISR,
		"acks":          string(s.Workload.Acks),
		"idempotent":    fmt.Sprint(s.Workload.Idempotent),
		"kafka":         s.Cluster.Kafka,
		"txn.version":   s.txnVersion(),
		"share.version": s.shareVersionSetting(),
		// Without a group there is no protocol: a condition on it never
		// matches.
		"group.protocol": s.groupProtocol(),
		"commit_epoch":   s.groupCommitEpoch(),
		"driver":         s.Workload.Driver,
	}
}

// groupCommitEpoch is the group's commit_epoch with its default filled,
// or "" without a group.
func (s *Scenario) groupCommitEpoch() string {
	g := s.Workload.Group
	switch {
	case !g.Enabled():
		return ""
	case g.CommitEpoch == "":
		return workloads.CommitEpochNone
	}
	return g.CommitEpoch
}

// groupProtocol is the workload group's rebalance protocol with its
// default filled, workloads.GroupProtocolMixed when group.protocols gives
// its members both, or "" without a group.
func (s *Scenario) groupProtocol() string {
	return s.Workload.Group.ProtocolLabel()
}

// elrOn is whether the cluster is formatted with ELR on.
func (s *Scenario) elrOn() bool {
	switch s.Cluster.ELR {
	case elrOn:
		return true
	case elrOff:
		return false
	}
	v, err := cluster.ParseVersion(s.Cluster.Kafka)
	return err == nil && v.ELRDefault()
}

// shareVersionSetting is the share.version level the cluster is
// formatted with ("" when the version is unknown).
func (s *Scenario) shareVersionSetting() string {
	return s.formattedLevel(s.Cluster.shareVersion, cluster.Version.ShareVersionDefault)
}

// txnVersion is the transaction.version level the cluster is formatted with.
func (s *Scenario) txnVersion() string {
	return s.formattedLevel(s.Cluster.txnVersion, cluster.Version.TransactionVersionDefault)
}

// formattedLevel is a feature's level the cluster is formatted with: the
// scenario's own (set), else the release's default ("" when the release
// is unknown).
func (s *Scenario) formattedLevel(set func() (*int16, error), def func(cluster.Version) int16) string {
	if l, err := set(); err == nil && l != nil {
		return fmt.Sprint(*l)
	}
	v, err := cluster.ParseVersion(s.Cluster.Kafka)
	if err != nil {
		return ""
	}
	return fmt.Sprint(def(v))
}
