// Package kinds links every room of fault kinds: a program that parses or
// runs schedules imports it, for its side effect alone, so that every
// kind is registered with the seam (package nemesis) before the first
// schedule is read. Every kind lives in a room (a package of kinds
// grouped by what they act on, importing the seam, never imported by it),
// and each room is a line here.
package kinds

import (
	// The faults on kchaos's own clients, and on the coordinators and
	// transactions they use: nemesis/clients.
	_ "github.com/kchaos/kchaos/nemesis/clients"
	// The disk faults: nemesis/disk.
	_ "github.com/kchaos/kchaos/nemesis/disk"
	// The link faults: nemesis/network.
	_ "github.com/kchaos/kchaos/nemesis/network"
	// The process faults: nemesis/process.
	_ "github.com/kchaos/kchaos/nemesis/process"
	// The quorum, reconfiguration and admin faults: nemesis/quorum.
	_ "github.com/kchaos/kchaos/nemesis/quorum"
	// The request faults: nemesis/requests.
	_ "github.com/kchaos/kchaos/nemesis/requests"
)
