//go:build integration

package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/ssh/sshtest"
	"github.com/kchaos/kchaos/harness/scenario"
)

// The seed scenarios s1, s2 and s7, and the request-fault story p1, on SSH test hosts (containers running
// sshd, Kafka a plain process started over SSH), driven by the ssh backend
// alone, with the same outcomes asserted as on the Docker backend.

// onSSHHosts makes test hosts for the scenario's cluster (its broker and
// controller configs rendered into each host's server.properties) and
// points the scenario at them.
func onSSHHosts(t *testing.T, s *scenario.Scenario) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	begin := time.Now()
	h, err := sshtest.Start(ctx, s.Cluster.ClusterConfig(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	t.Logf("%s: SSH test hosts up in %s (network %s)", s.Name, time.Since(begin).Round(100*time.Millisecond), h.Network)
	c := &s.Cluster
	c.Backend = scenario.BackendSSH
	c.Hosts, c.SSH, c.Service = h.Spec.Hosts, &h.Spec.SSH, &h.Spec.Service
	c.ConfirmOwner, c.StateDir = true, h.Spec.StateDir
	s.Defaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

// S2 is the SSH backend's representative in make test; S1 and S7 run
// under make test-scenarios (make test's 45-minute budget).
func TestSSHScenarioS1(t *testing.T) {
	allScenarios(t)
	assertS1(t, runScenarioOn(t, onSSHHosts, "s1"))
}
func TestSSHScenarioS2(t *testing.T) { assertS2(t, runScenarioOn(t, onSSHHosts, "s2")) }
func TestSSHScenarioS7(t *testing.T) {
	allScenarios(t)
	assertS7(t, runScenarioOn(t, onSSHHosts, "s7"))
}

// TestSSHScenarioP1: request faults on SSH hosts. The request proxy runs on
// the kchaos host in front of any backend's brokers, so p1's dropped
// EndTxn answers act on the SSH cluster's clients as on Docker's, and the
// outcome is the same. (The brokers' own requests, clients: replica, need
// capability inter-broker-route, which the SSH backend has not.)
func TestSSHScenarioP1(t *testing.T) {
	allScenarios(t)
	r := runScenarioOn(t, onSSHHosts, "p1")
	r.requestActions(t, "drop-response", "EndTxn", "kchaos-txn-producer-")
	assertExactlyOnce(t, "p1", r)
}
