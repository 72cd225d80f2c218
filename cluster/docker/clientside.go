package docker

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/kchaos/kchaos/cluster"
)

var _ cluster.ClientSide = (*Cluster)(nil)

// Capabilities is every fault kchaos has: each node is a container of the
// run's own, with its own network namespace (tc qdiscs go with it),
// cgroup (block I/O limits), log dir mounts (immutable, bounded, cut while
// down) and image (an upgrade swaps it), and the host sits on the run's
// bridge (its address is the client side with the client containers',
// and where the request proxy and an inter-broker route listen).
var Capabilities = cluster.NewCaps(cluster.CapPartition, cluster.CapNetem, cluster.CapPause, cluster.CapKill,
	cluster.CapDisk, cluster.CapClientCut, cluster.CapPowerLoss, cluster.CapUpgrade, cluster.CapInterBrokerRoute, cluster.CapBootstrap)

// Capabilities is the backend's declared set (Capabilities).
func (c *Cluster) Capabilities() cluster.Caps { return Capabilities }

// ClientAddrs is the run network's gateway (HostAddr), then the address
// of each client container running now (RunClient: the Java driver's
// JVMs).
func (c *Cluster) ClientAddrs(ctx context.Context) ([]netip.Addr, error) {
	host, err := c.HostAddr(ctx)
	if err != nil {
		return nil, err
	}
	return append([]netip.Addr{host}, c.clients.addrs()...), nil
}

// HostAddr is the run network's gateway: the host's address on the
// bridge, which is the source of every connection kchaos opens to a
// container from the host (the Go clients, the admin client, the
// observer, the request proxy's dials), and where the host listens for
// the containers (the request proxy, an inter-broker route). kchaos names
// it when it creates the network (createNetwork: gateway), so it is
// derived, not asked of Docker.
func (c *Cluster) HostAddr(context.Context) (netip.Addr, error) {
	if c.network == nil {
		return netip.Addr{}, fmt.Errorf("run %s: no network", c.cfg.RunID)
	}
	return gateway(c.subnet), nil
}
