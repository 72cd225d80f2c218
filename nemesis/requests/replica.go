package requests

import (
	"fmt"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
)

// replicaRole is the request faults' client role of the brokers
// themselves: `clients: replica` selects the requests one broker sends
// another (a follower's replication Fetch, the transaction coordinator's
// markers) and, on a static quorum, the requests a broker sends the
// controllers (BrokerHeartbeat, AlterPartition, the metadata log's raft
// Fetch); `client: N` selects broker N's only, and the step's target the
// nodes they are sent to (`target: {role: leader, partition: 0}`: the
// leader's answers to its followers; `target: {role: controller}`: the
// active controller's answers). Such a fault
// needs the brokers' inter-broker traffic routed through the request
// proxy (cluster.CapInterBrokerRoute): the run starts its cluster with
// each broker's inter-broker listener advertised at a proxy listener
// (cluster/interbroker.go), so a scenario with one cannot share a cluster
// with another run.
const replicaRole = "replica"

// replicaClients are the client ids (exact, and prefixes) of a broker's
// requests to the other nodes, every broker's when broker is nil, as
// Kafka names its clients: its replica fetchers broker-<id>-fetcher-<n>
// (ReplicaFetcherManager) and its other inter-broker senders
// broker-<id>-...; its channels to the controller the bare broker id
// (NodeToControllerChannelManager's NetworkClient); its raft client, the
// metadata log's observer, raft-client-<id> (KafkaRaftManager).
func replicaClients(broker *int) (ids, prefixes []string) {
	if broker == nil {
		return nil, []string{"broker-", "raft-client-"}
	}
	// The bare id is exact: a prefix "1" would also select broker 10's.
	return []string{fmt.Sprint(*broker), fmt.Sprintf("raft-client-%d", *broker)},
		[]string{fmt.Sprintf("broker-%d-", *broker)}
}

// checkReplica is CheckAgainst for clients: replica: a follower index
// (client) names a broker, and no fault of the schedule acts on the
// brokers' links by their addresses (partition, netem), which routed
// replication no longer uses: such a fault would silently miss it.
func checkReplica(p string, client *int, target *nemesis.Target, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	if client != nil && !v.IsBroker(int32(*client)) {
		add(p+".client", "%d: with clients: replica, the sending broker's id (brokers 0..%d)", *client, v.Brokers-1)
	}
	if v.Dynamic && targetsControllers(target) {
		add(p+".target", "a dynamic quorum's brokers reach the controllers at the endpoints the quorum advertises, which the controllers use among themselves: kchaos routes only a static quorum's broker-to-controller requests")
	}
	if v.LinkFault != "" {
		add(p+".clients", "replica routes the brokers' replication through the request proxy, so %s (which acts on the brokers' own addresses) would miss it: not in one scenario", v.LinkFault)
	}
}

// targetsControllers says whether a target names controllers: the
// active one, or controller ids.
func targetsControllers(t *nemesis.Target) bool {
	if t == nil {
		return false
	}
	if t.Role == nemesis.RoleController {
		return true
	}
	for _, n := range t.Nodes {
		if n >= cluster.ControllerIDBase {
			return true
		}
	}
	return false
}
