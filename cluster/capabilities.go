package cluster

import (
	"fmt"
	"strings"
)

// Capability is one kind of fault a backend can apply to its nodes. Each
// backend declares the set it has (its package's Capabilities, and
// Nodes.Capabilities at run time), and each fault kind declares what it
// needs (nemesis's registry), so that a scenario asking a backend for a
// fault it cannot apply is refused when it is validated, before any
// cluster starts, rather than when the fault fires with a workload
// running.
type Capability uint16

const (
	// CapPartition: kchaos-tagged iptables rules inside the nodes (network
	// partitions), removed again by a heal or a crash record.
	CapPartition Capability = 1 << iota
	// CapNetem: tc qdiscs (delay, loss, rate) in network namespaces of the
	// run's own, which go with the nodes at teardown (containers).
	CapNetem
	// CapPause freezes and thaws a node's processes.
	CapPause
	// CapKill kills, stops and starts a node's Kafka process.
	CapKill
	// CapDisk: the Disks interface (log dirs made unwritable, filled,
	// throttled).
	CapDisk
	// CapClientCut: the ClientSide interface (the kchaos host's address as
	// the nodes see it, which cut-clients and netem's clients links act on).
	CapClientCut
	// CapPowerLoss: a node's log dir can be cut back (Nodes.Files) while
	// the node is down, as a power loss would leave it.
	CapPowerLoss
	// CapUpgrade: the Upgrader interface (a node restarted on another
	// release in place).
	CapUpgrade

	capEnd
)

// registered is the next capability RegisterCapability hands out: a fault
// kind that needs something no backend had before declares it in its own
// file, and the backends that can do it add it to their set, so that this
// list need not change for it.
var registered = capEnd

// RegisterCapability declares a capability beyond the built-in ones, named
// as errors and docs spell it. Call it from a package-level var (at init),
// not while scenarios are being checked: AllCaps grows with it.
func RegisterCapability(name string) Capability {
	if registered == 0 {
		panic("cluster: no capability bit left for " + name)
	}
	c := registered
	capNames[c] = name
	registered <<= 1
	return c
}

// capNames are the capabilities' names, as errors and docs spell them.
var capNames = map[Capability]string{
	CapPartition: "partition", CapNetem: "netem", CapPause: "pause", CapKill: "kill",
	CapDisk: "disk", CapClientCut: "client-cut", CapPowerLoss: "power-loss", CapUpgrade: "upgrade",
}

// Caps is a set of capabilities.
type Caps Capability

// NewCaps is the set of cs.
func NewCaps(cs ...Capability) Caps {
	var s Caps
	for _, c := range cs {
		s |= Caps(c)
	}
	return s
}

// AllCaps is every capability (an in-memory test cluster's set).
func AllCaps() Caps { return Caps(registered - 1) }

// Has reports whether every capability of want is in s.
func (s Caps) Has(want Caps) bool { return s&want == want }

// Missing is the capabilities of want that s lacks.
func (s Caps) Missing(want Caps) Caps { return want &^ s }

// List is the set's capabilities, in declaration order.
func (s Caps) List() []Capability {
	var out []Capability
	for c := Capability(1); c != 0 && c < registered; c <<= 1 {
		if s&Caps(c) != 0 {
			out = append(out, c)
		}
	}
	return out
}

// String names the capability.
func (c Capability) String() string {
	if n, ok := capNames[c]; ok {
		return n
	}
	return fmt.Sprintf("capability(%d)", uint16(c))
}

// String is the set's names, comma-separated ("none" when empty).
func (s Caps) String() string {
	var names []string
	for _, c := range s.List() {
		names = append(names, c.String())
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// CheckCapabilities reports a declared capability whose interface n lacks,
// or an interface n has but does not declare: a backend's tests call it,
// so that its declaration and its code cannot drift apart.
func CheckCapabilities(n Nodes) error {
	caps := n.Capabilities()
	for _, x := range []struct {
		c    Capability
		impl bool
		what string
	}{
		{CapDisk, implements[Disks](n), "cluster.Disks"},
		{CapUpgrade, implements[Upgrader](n), "cluster.Upgrader"},
		{CapClientCut, implements[ClientSide](n), "cluster.ClientSide"},
	} {
		if caps.Has(Caps(x.c)) != x.impl {
			return fmt.Errorf("%T declares %s: %v, but implements %s: %v", n, x.c, caps.Has(Caps(x.c)), x.what, x.impl)
		}
	}
	return nil
}

func implements[T any](v any) bool {
	_, ok := v.(T)
	return ok
}
