//go:build integration

package metadata_test

// TestJavaMetaAdmin runs the metadata workload on driver java's admin
// client, found in the registry (workloads.NewMetaAdmin): this external
// test file links every driver package, as the seam's tests do
// (workloads/drivers_test.go), so that it is registered in the test
// binary.
import _ "github.com/kchaos/kchaos/workloads/drivers"
