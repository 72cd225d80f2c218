package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/cluster/admin"
)

// Role is what a node does.
type Role string

const (
	RoleBroker     Role = "broker"
	RoleController Role = "controller"
)

// Node is one Kafka process of the cluster.
type Node struct {
	ID   int32
	Role Role
	Name string // the backend's name for it: a container name, a host name
	IP   string
	Rack string
	// InterBrokerAddr, when set, is where brokers reach this node
	// (interbroker.go): a proxy's address. A broker advertises it for its
	// inter-broker listener; a controller's is in the brokers'
	// controller.quorum.voters.
	InterBrokerAddr string
}

// Addr is the node's listener address (host:port on the run's network).
func (n Node) Addr() string {
	port := BrokerPort
	if n.Role == RoleController {
		port = ControllerPort
	}
	return n.IP + ":" + strconv.Itoa(port)
}

// Fast failure detection: seconds, not tens of seconds, so a fault's effect
// on the ISR and on leadership shows within a test's patience. Kafka's
// defaults are in the comments.
var failureDetection = map[string]string{
	"replica.lag.time.max.ms":      "4000", // 30000: a silent follower leaves the ISR
	"replica.fetch.wait.max.ms":    "200",  // 500; must stay <= replica.lag.time.max.ms
	"broker.heartbeat.interval.ms": "500",  // 2000
	"broker.session.timeout.ms":    "3000", // 9000 (controller side): fence a silent broker
	// Consumer groups under the KIP-848 protocol take their session and
	// heartbeat from the brokers (the classic protocol's from the client,
	// within group.min.session.timeout.ms, 6000 by default): a killed
	// member would hold its partitions for 45 s.
	"group.consumer.session.timeout.ms":        "6000", // 45000
	"group.consumer.min.session.timeout.ms":    "6000", // 45000
	"group.consumer.heartbeat.interval.ms":     "1000", // 5000
	"group.consumer.min.heartbeat.interval.ms": "1000", // 5000
}

// DefaultBrokerConfig is what every broker runs with unless overridden.
// Settings that kchaos needs to work (listeners, ids, log dirs, the quorum)
// are set by Render and cannot be overridden: see ForcedBrokerKeys.
func DefaultBrokerConfig(brokers int) map[string]string {
	rf := strconv.Itoa(min(brokers, 3))
	m := map[string]string{
		"auto.leader.rebalance.enable":             "false", // true: would move leaders behind a fault's back
		"offsets.topic.replication.factor":         rf,
		"transaction.state.log.replication.factor": rf,
		"transaction.state.log.min.isr":            "1",
		"group.initial.rebalance.delay.ms":         "0",
		"num.partitions":                           "1",
		"auto.create.topics.enable":                "false",
		"num.network.threads":                      "2",
		"num.io.threads":                           "2",
		"num.replica.fetchers":                     "1",
		"log.segment.bytes":                        "16777216", // small segments: a power cut leaves a visible recovery point
		"log.retention.check.interval.ms":          "300000",
	}
	maps.Copy(m, failureDetection)
	return m
}

// DefaultControllerConfig is what every controller runs with.
func DefaultControllerConfig() map[string]string {
	return map[string]string{
		"broker.heartbeat.interval.ms": failureDetection["broker.heartbeat.interval.ms"],
		"broker.session.timeout.ms":    failureDetection["broker.session.timeout.ms"],
		"num.network.threads":          "1",
		"num.io.threads":               "1",
		// The controller's periodic check for leaderless partitions that an
		// unclean election could fix (KRaft); 5 minutes by default, so a
		// live unclean.leader.election.enable=true would act minutes late.
		"unclean.leader.election.interval.ms": "1000",
	}
}

// forcedBrokerKeys are the settings kchaos owns on every node: a user's
// broker config may not change them (they are listed in the report).
var forcedBrokerKeys = []string{
	"process.roles", "node.id", "listeners", "advertised.listeners",
	"listener.security.protocol.map", "controller.listener.names",
	"inter.broker.listener.name", "controller.quorum.voters",
	"controller.quorum.bootstrap.servers", autoJoinConfig, "log.dirs", "log.dir",
	"metadata.log.dir", "broker.rack",
}

// DataDir is the Kafka log dir on every node (log.dirs), whatever the
// backend; LogFiles paths are relative to it.
const DataDir = "/var/lib/kafka/data"

// Render returns the server.properties of node n in a cluster of brokers
// brokers. q is how it reaches the quorum (StaticVoters, or a
// KRaftLayout's Addrs). Overrides are applied in order over the defaults;
// the keys kchaos owns (ForcedBrokerKeys) are set last.
func Render(n Node, q QuorumAddrs, brokers int, overrides ...map[string]string) string {
	return RenderLogDirs(n, q, brokers, 1, overrides...)
}

// RenderLogDirs is Render for a broker with logDirs log dirs
// (LogDirPaths); controllers always get one.
func RenderLogDirs(n Node, q QuorumAddrs, brokers, logDirs int, overrides ...map[string]string) string {
	var base map[string]string
	if n.Role == RoleBroker {
		base = DefaultBrokerConfig(brokers)
	} else {
		base = DefaultControllerConfig()
	}
	props := maps.Clone(base)
	for _, o := range overrides {
		maps.Copy(props, o)
	}
	props["node.id"] = strconv.Itoa(int(n.ID))
	delete(props, "controller.quorum.voters")
	delete(props, "controller.quorum.bootstrap.servers")
	delete(props, autoJoinConfig)
	if q.BootstrapServers != "" {
		props["controller.quorum.bootstrap.servers"] = q.BootstrapServers
	} else {
		props["controller.quorum.voters"] = q.Voters
	}
	if q.AutoJoin != nil && n.Role == RoleController {
		props[autoJoinConfig] = strconv.FormatBool(*q.AutoJoin)
	}
	props["controller.listener.names"] = "CONTROLLER"
	props["listener.security.protocol.map"] = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
	props["log.dirs"] = DataDir
	if n.Role == RoleBroker && logDirs > 1 {
		props["log.dirs"] = strings.Join(LogDirPaths(logDirs), ",")
	}
	delete(props, "log.dir")
	if n.Role == RoleBroker {
		props["process.roles"] = "broker"
		props["listeners"] = fmt.Sprintf("PLAINTEXT://0.0.0.0:%d", BrokerPort)
		props["advertised.listeners"] = fmt.Sprintf("PLAINTEXT://%s:%d", n.IP, BrokerPort)
		props["inter.broker.listener.name"] = "PLAINTEXT"
		if n.InterBrokerAddr != "" {
			props["listeners"] += fmt.Sprintf(",%s://0.0.0.0:%d", interBrokerListener, interBrokerPort)
			props["advertised.listeners"] += fmt.Sprintf(",%s://%s", interBrokerListener, n.InterBrokerAddr)
			props["inter.broker.listener.name"] = interBrokerListener
			props["listener.security.protocol.map"] += "," + interBrokerListener + ":PLAINTEXT"
		}
		if n.Rack != "" {
			props["broker.rack"] = n.Rack
		} else {
			delete(props, "broker.rack")
		}
	} else {
		props["process.roles"] = "controller"
		props["listeners"] = fmt.Sprintf("CONTROLLER://0.0.0.0:%d", ControllerPort)
		delete(props, "advertised.listeners")
		delete(props, "inter.broker.listener.name")
		delete(props, "broker.rack")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# server.properties of %s %d, written by kchaos\n", n.Role, n.ID)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return b.String()
}

// brokerVoters renders the static quorum as the brokers reach it: each
// controller at its inter-broker route when it has one (interbroker.go),
// else at its own address.
func brokerVoters(controllers []Node) string {
	parts := make([]string, len(controllers))
	for i, c := range controllers {
		addr := c.InterBrokerAddr
		if addr == "" {
			addr = fmt.Sprintf("%s:%d", c.IP, ControllerPort)
		}
		parts[i] = fmt.Sprintf("%d@%s", c.ID, addr)
	}
	return strings.Join(parts, ",")
}

// Voters renders the static quorum for controllers.
func Voters(controllers []Node) string {
	parts := make([]string, len(controllers))
	for i, c := range controllers {
		parts[i] = fmt.Sprintf("%d@%s:%d", c.ID, c.IP, ControllerPort)
	}
	return strings.Join(parts, ",")
}

// FormatArgs are the StorageTool format arguments beyond -c and -t: the
// feature levels a scenario fixes at format time (nil keeps the release's
// default for new clusters). ELR and transaction.version exist from 4.0,
// share.version from 4.1 (Config.Validate refuses them before).
func FormatArgs(v Version, elr *bool, txnVersion, shareVersion *int16) []string {
	if !v.HasELR() {
		return nil
	}
	var out []string
	if elr != nil {
		on := "0"
		if *elr {
			on = "1"
		}
		out = append(out, "--feature", admin.FeatureELR+"="+on)
	}
	if txnVersion != nil {
		out = append(out, "--feature", fmt.Sprintf("%s=%d", admin.FeatureTransaction, *txnVersion))
	}
	if shareVersion != nil && v.HasShareGroups() {
		out = append(out, "--feature", fmt.Sprintf("%s=%d", admin.FeatureShare, *shareVersion))
	}
	return out
}

// OverriddenUserKeys lists the keys of a user's config that kchaos replaces
// (forced keys and failure-detection timeouts), for the report.
func OverriddenUserKeys(user map[string]string) []string {
	var out []string
	for _, k := range forcedBrokerKeys {
		if _, ok := user[k]; ok {
			out = append(out, k)
		}
	}
	for k := range failureDetection {
		if _, ok := user[k]; ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ControllerTopicDefaults are the topic configs whose cluster-wide default
// the KRaft controller resolves from its own configuration, not the
// brokers': ConfigurationControlManager.getTopicConfig falls back from the
// topic to the cluster's dynamic config to the controller's static config.
// unclean.leader.election.enable decides the controller's automatic
// unclean elections; min.insync.replicas its effective minimum ISR (the ELR
// rules). A broker's server.properties alone does not set them for the
// controller: the brokers then describe a topic as unclean=true while the
// controller never elects uncleanly.
var ControllerTopicDefaults = []string{"unclean.leader.election.enable", "min.insync.replicas"}
