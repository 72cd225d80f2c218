package txn_test

// TestTxnLoop's configuration is validated as a scenario's is, which
// names the registered drivers: this external test file links every
// driver package, as the seam's tests do (workloads/drivers_test.go), so
// that they are registered in the test binary.
import _ "github.com/kchaos/kchaos/workloads/drivers"
