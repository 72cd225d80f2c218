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

// DisposableNetwork is implemented by backends whose nodes each run in a
// network namespace of the run's own (containers): kernel network state a
// fault adds there (a tc qdisc) goes with the node at teardown or `kchaos
// clean`, so a crash of kchaos cannot leave it on a machine. The netem
// fault needs it; the SSH backend, whose hosts are the user's and whose
// crash record (the state file) knows only iptables rules, lacks it.
type DisposableNetwork interface {
	DisposableNetwork() bool
}
