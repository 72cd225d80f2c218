package requests

import (
	"fmt"

	"github.com/kchaos/kchaos/nemesis"
)

// ReplicaRole is the request faults' client role of the brokers
// themselves: `clients: replica` selects the requests one broker sends
// another (a follower's replication Fetch, the transaction coordinator's
// markers), with `client: N` the follower broker N's fetchers only, and
// the step's target the brokers they are sent to (`target: {role: leader,
// partition: 0}`: the leader's answers to its followers). Such a fault
// needs the brokers' inter-broker traffic routed through the request
// proxy (cluster.CapInterBrokerRoute): the run starts its cluster with
// each broker's inter-broker listener advertised at a proxy listener
// (cluster/interbroker.go), so a scenario with one cannot share a cluster
// with another run.
const ReplicaRole = "replica"

// replicaClientPrefix is the client id prefix of a broker's requests to
// another: Kafka's replica fetchers name themselves
// broker-<id>-fetcher-<n> (ReplicaFetcherManager), its other
// inter-broker senders broker-<id>-....
func replicaClientPrefix(follower *int) string {
	if follower == nil {
		return "broker-"
	}
	return fmt.Sprintf("broker-%d-fetcher-", *follower)
}

// checkReplica is CheckAgainst for clients: replica: a follower index
// (client) names a broker, and no fault of the schedule acts on the
// brokers' links by their addresses (partition, netem), which routed
// replication no longer uses: such a fault would silently miss it.
func checkReplica(p string, client *int, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	if client != nil && !v.IsBroker(int32(*client)) {
		add(p+".client", "%d: with clients: replica, the follower broker's id (brokers 0..%d)", *client, v.Brokers-1)
	}
	if v.LinkFault != "" {
		add(p+".clients", "replica routes the brokers' replication through the request proxy, so %s (which acts on the brokers' own addresses) would miss it: not in one scenario", v.LinkFault)
	}
}
