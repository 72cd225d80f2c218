package cluster

import (
	"fmt"
	"net"
	"strconv"
)

// The brokers' inter-broker traffic (replication Fetch, transaction
// markers, every request one broker sends another) normally goes straight
// from broker to broker on the run's network. A scenario whose request
// faults aim at it (issue 38's replica role) routes it through kchaos's
// request proxy instead: each broker opens a second listener,
// REPLICATION, names it its inter-broker listener, and advertises it at
// the address Config.InterBrokerVia gives, a proxy listener that forwards
// to it. Clients keep the PLAINTEXT listener; brokers reach the
// controllers as before (a controller's address is also what the other
// controllers use, so routing it would route the quorum's own traffic:
// the next step, not this one).

// CapInterBrokerRoute: the backend can start its brokers with their
// inter-broker listener advertised where Config.InterBrokerVia says, at
// an address on the kchaos host the brokers can reach (Docker: the run
// network's gateway).
var CapInterBrokerRoute = RegisterCapability("inter-broker-route")

// InterBrokerPort is the REPLICATION listener's port on a routed broker.
const InterBrokerPort = 9095

// InterBrokerListener is the routed brokers' inter-broker listener name.
const InterBrokerListener = "REPLICATION"

// InterBrokerVia routes the brokers' inter-broker traffic. The backend
// calls it once at cluster start, after the network exists and before any
// broker starts, with host (the kchaos host's address as the brokers
// reach it) and each broker's REPLICATION listener (id -> ip:port); it
// returns the address each broker advertises for that listener.
type InterBrokerVia func(host string, upstream map[int32]string) (map[int32]string, error)

// RouteInterBroker calls via for brokers and sets each one's
// InterBrokerAddr: one owner of the call's contract for every backend
// that has CapInterBrokerRoute.
func RouteInterBroker(via InterBrokerVia, host string, brokers []*Node) error {
	up := map[int32]string{}
	for _, n := range brokers {
		up[n.ID] = net.JoinHostPort(n.IP, strconv.Itoa(InterBrokerPort))
	}
	adv, err := via(host, up)
	if err != nil {
		return fmt.Errorf("inter-broker route: %w", err)
	}
	for _, n := range brokers {
		a, ok := adv[n.ID]
		if !ok {
			return fmt.Errorf("inter-broker route: no address for broker %d", n.ID)
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("inter-broker route: broker %d: %w", n.ID, err)
		}
		n.InterBrokerAddr = a
	}
	return nil
}
