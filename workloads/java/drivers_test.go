package java_test

// The driver's tests validate workloads that name the other drivers
// (TestJavaRefuse: implicit acks with franz-go, share groups with
// kafka-go): this external test file links every driver package, as the
// seam's tests do (workloads/drivers_test.go), so that those names are
// registered in the test binary and each refusal is the one it asserts,
// not an unknown driver's.
import _ "github.com/kchaos/kchaos/workloads/drivers"
