package nemesis_test

// The seam's tests see every kind (TestRegistry, TestKindsDecide, the
// history facts, draws and "only for" messages of every kind): this
// external test file links every room, which registers its kinds in the
// test binary before any test runs. The seam's own code never imports a
// room.
import _ "github.com/kchaos/kchaos/nemesis/kinds"
