// Package itest is the setup every integration test starts with, written
// once: skip under -short (the test needs Docker and the Kafka image),
// the Kafka version under test, the store to keep runs in. It imports
// nothing of kchaos, so any package's tests may use it.
package itest

import (
	"os"
	"testing"
)

// Cluster skips t under -short, saying what it needs ("" means Docker and
// the Kafka image), keeps testcontainers from starting its reaper (the
// Makefile's TESTCONTAINERS_RYUK_DISABLED, for a plain go test too) and
// returns the Kafka version under test: KCHAOS_KAFKA_VERSION, or "" for
// the scenario's own default.
func Cluster(t testing.TB, needs string) string {
	t.Helper()
	if needs == "" {
		needs = "Docker and the Kafka image"
	}
	if testing.Short() {
		t.Skip("integration test: needs " + needs)
	}
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	return os.Getenv("KCHAOS_KAFKA_VERSION")
}

// Version is Cluster's version, or "latest" when none is given: for a
// flag that must name one.
func Version(t testing.TB) string {
	t.Helper()
	if v := Cluster(t, ""); v != "" {
		return v
	}
	return "latest"
}

// Store is where a test keeps its runs: KCHAOS_TEST_STORE (to look at
// them afterwards), else a temporary folder removed with the test.
func Store(t testing.TB) string {
	if s := os.Getenv("KCHAOS_TEST_STORE"); s != "" {
		return s
	}
	return t.TempDir()
}
