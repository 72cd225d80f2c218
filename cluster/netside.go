package cluster

import (
	"context"
	"net/netip"
)

// ClientSide is implemented by backends that know the addresses the
// run's clients connect from, as the nodes see them. On Docker: the run
// network's gateway, the host's address on that bridge, where every
// connection kchaos opens from the host comes from (the Go clients, the
// admin client, the observer, the request proxy's dials), plus the
// address of every client container the backend runs (ClientRunner: the
// Java driver's JVMs). The cut-clients fault drops those addresses at
// the brokers, and netem's clients links shape them. A backend without
// it cannot cut clients; faults type-assert a Nodes for it, as for
// Upgrader.
type ClientSide interface {
	// HostAddr is the kchaos host's address as the nodes (and the client
	// containers) reach it: where the host listens for them (the request
	// proxy, an inter-broker route).
	HostAddr(ctx context.Context) (netip.Addr, error)
	// ClientAddrs is HostAddr first, then the address of each client
	// container running now, in start order. It is the one owner of
	// "where the run's clients come from": a client container started
	// after the call is not in it.
	ClientAddrs(ctx context.Context) ([]netip.Addr, error)
}
