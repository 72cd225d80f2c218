//go:build integration

package shares_test

// BenchmarkShareAccept runs the share group on driver franz, found in the
// registry: this external test file links every driver package, as the
// seam's tests do (workloads/drivers_test.go), so that it is registered
// in the test binary.
import _ "github.com/kchaos/kchaos/workloads/drivers"
