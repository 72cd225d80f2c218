package docker

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"github.com/moby/moby/client"

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
	cluster.CapDisk, cluster.CapClientCut, cluster.CapPowerLoss, cluster.CapUpgrade, cluster.CapInterBrokerRoute)

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
// the containers (the request proxy, an inter-broker route). The network's
// IPAM config names it only when it was given at creation (kchaos gives
// just the subnet), so it is read from a running node's endpoint, where
// Docker records the gateway it assigned.
func (c *Cluster) HostAddr(ctx context.Context) (netip.Addr, error) {
	if c.network == nil {
		return netip.Addr{}, fmt.Errorf("run %s: no network", c.cfg.RunID)
	}
	res, err := c.docker.NetworkInspect(ctx, c.network.ID, client.NetworkInspectOptions{})
	if err != nil {
		return netip.Addr{}, fmt.Errorf("network %s: inspect: %w", c.network.Name, err)
	}
	for _, cfg := range res.Network.IPAM.Config {
		if cfg.Gateway.Is4() {
			return cfg.Gateway, nil
		}
	}
	for _, id := range append(slices.Clone(c.brokers), c.controllers...) {
		ctr, err := c.container(id)
		if err != nil {
			continue
		}
		ci, err := c.docker.ContainerInspect(ctx, ctr.GetContainerID(), client.ContainerInspectOptions{})
		if err != nil || ci.Container.NetworkSettings == nil {
			continue
		}
		if ep, ok := ci.Container.NetworkSettings.Networks[c.network.Name]; ok && ep != nil && ep.Gateway.Is4() {
			return ep.Gateway, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("network %s: no IPv4 gateway in its IPAM config %+v nor on a running node's endpoint",
		c.network.Name, res.Network.IPAM.Config)
}
