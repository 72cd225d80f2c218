// Package disk is the room of the disk faults: they act on a broker's log
// dirs or on the data it has not flushed to them. disk-fail and disk-full
// make a log dir refuse writes (disk.go), disk-slow throttles its device
// (disk_slow.go), and lose-unflushed is a power loss: the node dies
// without a flush, and its partition logs are cut back to what reached
// the disk (powerloss.go), by the recovery point (logcut.go) or by a
// model of the kernel's page-cache writeback (writeback.go).
//
// The room imports the seam (package nemesis) and registers its kinds
// there at init; nemesis never imports it. A program that runs schedules
// links it through nemesis/kinds.
package disk

import "github.com/kchaos/kchaos/nemesis"

// kinds are the room's fault kinds, in the order they are registered
// (nemesis.Register): errors and histories list them
// in this order, so a kind added later goes last.
var kinds = []nemesis.Kind{
	loseUnflushedKind,
	diskFailKind,
	diskFullKind,
	diskSlowKind,
}

func init() {
	for _, k := range kinds {
		nemesis.Register(k)
	}
}
