// Package workloadstest is what the tests of the seam (package workloads)
// and of the driver packages (workloads/java) share: reading back a
// history they recorded in memory (ReadBack), and, only under the
// integration build tag, the shared cluster: one 1-controller, 3-broker
// cluster per test binary, started on first use and torn down by Main,
// with the steps the tests take on it (an admin client, a topic, a
// history, waiting for an ISR). Only tests import it (internal/layers).
package workloadstest
