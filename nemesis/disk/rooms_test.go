package disk_test

// The disk faults' tests start nodes again the way a schedule does, by a
// start step (lose-unflushed's heal is kill's: nemesis/process): this
// external test file links that room, which registers its kinds in the
// test binary before any test runs. The room's own code never imports
// another room.
import _ "github.com/kchaos/kchaos/nemesis/process"
