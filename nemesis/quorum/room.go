// Package quorum is the room of the faults that act on the cluster's
// control plane through the admin API and the KRaft quorum rather than
// on a node's process, links or disks: topic configs (set-config,
// setconfig.go), leader elections and placement (elect-unclean and
// elect-preferred, elect.go; move-leader, moveleader.go), the release
// and feature levels the cluster runs (upgrade, upgrade.go; set-feature,
// setfeature.go), and the dynamic quorum's voter set (add-controller and
// remove-controller, with reconfig.go's requests and read-backs).
//
// The room imports the seam (package nemesis) and registers its kinds
// there at init; nemesis never imports it. A program that runs schedules
// links it through nemesis/kinds. What the seam and the harness must know
// of these kinds they ask without naming the room: a voter change's
// direction (Kind.VoterChange, which the seam's scenario check follows),
// a rolling upgrade's ops (nemesis.Sequence, which the runner plays), the
// configs a step sets (nemesis.ConfigChanger) and the release it moves
// to (nemesis.Upgrader). The quorum roles a target resolves (the active
// controller, its followers, the observers) stay the seam's: every kind
// aims with them.
package quorum

import "github.com/kchaos/kchaos/nemesis"

// kinds are the room's fault kinds, in the order they are registered
// (nemesis.Register): errors and histories list them
// in this order, so a kind added later goes last. It is their order on
// the seam's list before they moved here; none is drawn by a random
// schedule (Draw: nemesis.NotDrawn), so no seed's draws change.
var kinds = []nemesis.Kind{
	setConfigKind,
	electUncleanKind,
	electPreferredKind,
	upgradeKind,
	setFeatureKind,
	addControllerKind,
	removeControllerKind,
	moveLeaderKind,
}

func init() {
	for _, k := range kinds {
		nemesis.Register(k)
	}
}
