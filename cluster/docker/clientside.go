package docker

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/moby/moby/client"

	"github.com/kchaos/kchaos/cluster"
)

var (
	_ cluster.ClientSide        = (*Cluster)(nil)
	_ cluster.DisposableNetwork = (*Cluster)(nil)
)

// ClientAddr is the run network's gateway: the host's address on the
// bridge, which is the source of every connection kchaos opens to a
// container (the workload, the admin client, the observer).
func (c *Cluster) ClientAddr(ctx context.Context) (netip.Addr, error) {
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
	return netip.Addr{}, fmt.Errorf("network %s: no IPv4 gateway in %+v", c.network.Name, res.Network.IPAM.Config)
}

// DisposableNetwork: each node is a container with its own network
// namespace, removed with the run.
func (c *Cluster) DisposableNetwork() bool { return true }
