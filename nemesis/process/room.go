// Package process is the room of the process faults: they act on a
// node's process as the operating system sees it. pause and resume freeze
// and thaw it (its cgroup), kill, start and restart stop it (SIGKILL, or
// SIGTERM for a clean restart) and start it again (process.go); kill and
// pause prove that they hold by what the kchaos host finds at the node's
// listener (proof.go).
//
// The room imports the seam (package nemesis) and registers its kinds
// there at init; nemesis never imports it. A program that runs schedules
// links it through nemesis/kinds. The acts themselves (Env.Kill, Start,
// Stop, Resume) are the seam's, since other rooms' faults kill and start
// nodes too (nemesis/disk's power loss); what is the kinds' own is here:
// their names and targets, how each ends, how each is drawn and proved.
// The kill heal is the room's; a kind of another room that it undoes
// names it (nemesis.HealNamed) instead of importing it.
package process

import "github.com/kchaos/kchaos/nemesis"

// kinds are the room's fault kinds, in the order they are registered
// after the kinds before them (nemesis.Register): errors and histories
// list them in this order, so a kind added later goes last. Their Draw
// ranks (pause 1, kill 2, restart 3) are what they were in the seam, so
// that seeds replay the same.
var kinds = []nemesis.Kind{
	pauseKind,
	resumeKind,
	killKind,
	startKind,
	restartKind,
}

func init() {
	for _, k := range kinds {
		nemesis.Register(k)
	}
}
