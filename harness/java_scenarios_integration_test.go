//go:build integration

package harness_test

import "testing"

// TestScenarioJavaDriver (issue 39): the seed stories through Apache
// Kafka's own Java client (workload.driver: java), judged as with the Go
// clients: s1 valid with nothing lost, s2's unclean election loss found
// and explained alike; and s1 with an older client (3.9.2's
// kafka-clients) against the cluster's release, as clusters are upgraded
// (brokers first, clients over months). In make test-scenarios; make
// test keeps the workload-level TestJavaIntegration (workloads).
func TestScenarioJavaDriver(t *testing.T) {
	allScenarios(t)
	t.Run("s1", func(t *testing.T) { assertS1(t, runScenario(t, "s1", "workload.driver=java")) })
	t.Run("s2", func(t *testing.T) { assertS2(t, runScenario(t, "s2", "workload.driver=java")) })
	t.Run("s1 client 3.9.2", func(t *testing.T) {
		assertS1(t, runScenario(t, "s1", "workload.driver=java", "workload.client_version=3.9.2"))
	})
}
