package network_test

// The link faults' tests pause, resume, kill and start nodes to show that
// a heal reaches them once they run again: this external test file links
// the room of those faults (nemesis/process), which registers its kinds
// in the test binary before any test runs. The room's own code never
// imports another room.
import _ "github.com/kchaos/kchaos/nemesis/process"
