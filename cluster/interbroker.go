package cluster

import (
	"fmt"
	"net"
	"slices"
	"strconv"
)

// The brokers' inter-broker traffic (replication Fetch, transaction
// markers, every request one broker sends another) normally goes straight
// from broker to broker on the run's network. A scenario whose request
// faults aim at it (issue 38's replica role) routes it through kchaos's
// request proxy instead: each broker opens a second listener,
// REPLICATION, names it its inter-broker listener, and advertises it at
// the address Config.InterBrokerVia gives, a proxy listener that forwards
// to it. Clients keep the PLAINTEXT listener. On a static quorum the
// brokers' requests to the controllers (heartbeats, AlterPartition, the
// metadata log's raft Fetch) are routed too: each broker's
// controller.quorum.voters names a proxy listener per controller, while
// the controllers keep their own addresses among themselves. A dynamic
// quorum's brokers learn the voters' endpoints from the quorum itself
// (the controllers' advertised listeners, which the controllers also use
// among themselves), so there only replication is routed.

// CapInterBrokerRoute: the backend can start its brokers with their
// inter-broker listener advertised where Config.InterBrokerVia says, at
// an address on the kchaos host the brokers can reach (Docker: the run
// network's gateway).
var CapInterBrokerRoute = RegisterCapability("inter-broker-route")

// interBrokerPort is the REPLICATION listener's port on a routed broker.
const interBrokerPort = 9095

// interBrokerListener is the routed brokers' inter-broker listener name.
const interBrokerListener = "REPLICATION"

// InterBrokerVia routes the brokers' inter-broker traffic. The backend
// calls it once at cluster start, after the network exists and before any
// node starts, with host (the kchaos host's address as the brokers reach
// it) and the listener of each node whose traffic from brokers is routed
// (id -> ip:port: each broker's REPLICATION listener, and on a static
// quorum each controller's CONTROLLER listener); it returns the address
// the brokers are to use for each.
type InterBrokerVia func(host string, upstream map[int32]string) (map[int32]string, error)

// RouteInterBroker calls via for brokers and controllers (nil: none, a
// dynamic quorum) and sets each one's InterBrokerAddr: one owner of the
// call's contract for every backend that has CapInterBrokerRoute.
func RouteInterBroker(via InterBrokerVia, host string, brokers, controllers []*Node) error {
	up := map[int32]string{}
	for _, n := range brokers {
		up[n.ID] = net.JoinHostPort(n.IP, strconv.Itoa(interBrokerPort))
	}
	for _, n := range controllers {
		up[n.ID] = net.JoinHostPort(n.IP, strconv.Itoa(ControllerPort))
	}
	adv, err := via(host, up)
	if err != nil {
		return fmt.Errorf("inter-broker route: %w", err)
	}
	for _, n := range append(slices.Clone(brokers), controllers...) {
		a, ok := adv[n.ID]
		if !ok {
			return fmt.Errorf("inter-broker route: no address for %s %d", n.Role, n.ID)
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("inter-broker route: %s %d: %w", n.Role, n.ID, err)
		}
		n.InterBrokerAddr = a
	}
	return nil
}
