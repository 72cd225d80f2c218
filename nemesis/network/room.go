// Package network is the room of the link faults: they act on the links
// between the nodes, and between the nodes and the client side, from
// inside the nodes' own network namespaces. partition cuts links with
// iptables rules along a shape (partition.go: the shapes, the grudge they
// make; partition_proof.go: the probes that prove the cut), cut-clients
// drops the client side's packets at a broker's client port
// (clientcut.go), and netem degrades links: delay, jitter, duplicate,
// reorder and rate through tc (netem.go, proved by netem_proof.go), loss
// through iptables' statistic match (netem_loss.go). rules.go lists,
// removes and heals what they leave on the nodes, and remembers the nodes
// a heal could not reach until they run again.
//
// The room imports the seam (package nemesis) and registers its kinds
// there at init; nemesis never imports it. A program that runs schedules
// links it through nemesis/kinds. What the seam must know of these kinds
// it asks through the registry: the heal's retry on a node that runs
// again and what is still pending (HealKind.Retry, Pending), the brokers
// the state reads avoid (Kind.AvoidReads), and the random schedule's
// netem spec (Draw.Validate).
package network

import (
	"maps"
	"slices"
	"sync"

	"github.com/kchaos/kchaos/nemesis"
)

// kinds are the room's fault kinds, in the order they are registered
// (nemesis.Register): errors and histories list them
// in this order, so a kind added later goes last. Their Draw ranks (6, 7
// and 5) are what they were in the seam, so that seeds replay the same.
var kinds = []nemesis.Kind{
	partitionKind,
	netemKind,
	cutClientsKind,
}

func init() {
	for _, k := range kinds {
		nemesis.Register(k)
	}
}

// netState is the room's state of one run (nemesis.RoomState): the nodes
// whose rules a heal could not reach yet, and the brokers the link faults
// cut, which the state reads avoid (staleReads, unreachableReads). The cut sets are
// replaced, never changed in place, so that a reader may hold one without
// the lock.
type netState struct {
	mu sync.Mutex
	// pending: nodes whose kchaos rules (and netem's qdiscs and loss
	// rules) are still to be removed (retryPending).
	pending map[int32]bool
	// cutFromController: brokers a partition cut off from a controller;
	// their metadata goes stale, so state reads try them last.
	cutFromController map[int32]bool
	// clientCut: brokers the kchaos host cannot reach (cut-clients); state
	// reads skip them.
	clientCut map[int32]bool
}

func state(e *nemesis.Env) *netState { return nemesis.RoomState[netState](e) }

// withIDs is m with ids set (on) or removed, as a new map.
func withIDs(m map[int32]bool, ids []int32, on bool) map[int32]bool {
	next := maps.Clone(m)
	if next == nil {
		next = map[int32]bool{}
	}
	for _, id := range ids {
		if on {
			next[id] = true
		} else {
			delete(next, id)
		}
	}
	return next
}

// without is all but the ids in drop.
func without(all, drop []int32) []int32 {
	return slices.DeleteFunc(slices.Clone(all), func(id int32) bool { return slices.Contains(drop, id) })
}
