package cluster

import (
	"context"
	"net/netip"
)

// ClientSide is implemented by backends that know the address the kchaos
// process's own connections (the workload's clients, the admin client, the
// observer) come from, as the nodes see it: on Docker, the run network's
// gateway, the host's address on that bridge. The cut-clients fault drops
// that address at the brokers, and netem's clients links shape it. A
// backend without it cannot cut clients; faults type-assert a Nodes for
// it, as for Upgrader.
type ClientSide interface {
	ClientAddr(ctx context.Context) (netip.Addr, error)
}
