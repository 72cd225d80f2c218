// Package testenv is the preamble kchaos's integration tests share.
//
// Integration tests (files with the build tag `integration`, which `make
// test` sets) run real Kafka brokers in Docker containers, SSH test hosts
// or Chromium. Plain `go test ./...` builds none of them, so a newcomer
// without Docker gets the unit tests alone. Under the tag, a missing
// Docker engine or browser fails the test instead of skipping it: a CI
// run must never pass because nothing ran.
//
// It imports nothing else of kchaos (internal/layers), so it asks the
// docker CLI, which the SSH test hosts use already, rather than a backend.
package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables the integration tests read (make sets the first).
const (
	// EnvKafkaVersion is the Kafka release the integration tests run
	// (make test passes its KAFKA_VERSION); empty means kchaos's default.
	EnvKafkaVersion = "KCHAOS_KAFKA_VERSION"
	// EnvStore keeps the tests' run folders for a look afterwards;
	// empty means a temporary folder removed with the test.
	EnvStore = "KCHAOS_TEST_STORE"
	// EnvAllScenarios opts in to the long integration tests (every seed
	// story, upgrades, exploration) that make test leaves to make
	// test-scenarios.
	EnvAllScenarios = "KCHAOS_ALL_SCENARIOS"
)

// AllScenarios skips t unless KCHAOS_ALL_SCENARIOS is set: the gate of
// the integration tests too long for make test.
func AllScenarios(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvAllScenarios) == "" {
		t.Skip("runs under make test-scenarios (" + EnvAllScenarios + "=1)")
	}
}

// TB is what the checks need of a *testing.T or *testing.B.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

var docker struct {
	once sync.Once
	err  error
}

// Docker fails t unless a Docker engine answers, where DOCKER_HOST (or
// the docker CLI's context) points. It asks once per test binary.
func Docker(t TB) {
	t.Helper()
	docker.once.Do(func() { docker.err = pingDocker() })
	if docker.err != nil {
		t.Fatalf("integration test: no Docker engine answers (%v). Start one with `make docker`, "+
			"or run the unit tests alone with `go test ./...` (without -tags integration)", docker.err)
	}
}

// DockerOrSkip skips t unless a Docker engine answers. Only for
// benchmarks: a measurement without a cluster has nothing to measure and
// no verdict to fake, so `make bench` on a machine without Docker skips
// the cluster benchmarks and still runs the pure ones. A test must use
// Docker, which fails.
func DockerOrSkip(t testing.TB) {
	t.Helper()
	docker.once.Do(func() { docker.err = pingDocker() })
	if docker.err != nil {
		t.Skipf("no Docker engine answers (%v): this benchmark needs a Kafka cluster (`make docker`)", docker.err)
	}
}

func pingDocker() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("docker info: %w: %s", err, msg)
		}
		return fmt.Errorf("docker info: %w", err)
	}
	return nil
}

// KafkaVersion is the Kafka release the integration tests run: the value
// of KCHAOS_KAFKA_VERSION, or "" for kchaos's default.
func KafkaVersion() string { return os.Getenv(EnvKafkaVersion) }

// Store is the folder a test keeps its run folders in: KCHAOS_TEST_STORE
// when set, else a temporary folder removed after the test.
func Store(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(EnvStore); d != "" {
		return d
	}
	return t.TempDir()
}

// Program fails t unless the program at path exists (the report's
// Chromium: `make chromium` installs it), naming the make target that
// provides it.
func Program(t TB, path, target string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("integration test: %s is missing (%v); `make %s` installs it", path, err, target)
	}
}

// CleanupTB is what TearDown needs of a *testing.T or *testing.B.
type CleanupTB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// Cluster is what TearDown needs of a cluster a test started.
type Cluster interface {
	RunID() string
	Teardown(ctx context.Context) error
}

// Labelled lists the containers and networks labelled with a run id that
// still exist (the Docker backend's docker.Labelled).
type Labelled func(ctx context.Context, runID string) (containers, networks []string, err error)

// TearDown registers c's teardown as a cleanup of t, and then, when left
// is given, the check that nothing labelled with its run id remains: a
// test that leaves containers behind fails, as a run that did would.
// Cleanups run last-registered first, so a check that needs the teardown
// done (the brokers' logs copied) is registered before TearDown.
func TearDown(t CleanupTB, c Cluster, left Labelled) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.Teardown(ctx); err != nil {
			t.Errorf("teardown of run %s: %v", c.RunID(), err)
		}
		if left == nil {
			return
		}
		ctrs, nets, err := left(ctx, c.RunID())
		if err != nil {
			t.Errorf("list what run %s left: %v", c.RunID(), err)
		} else if len(ctrs)+len(nets) != 0 {
			t.Errorf("after teardown %d containers and %d networks of run %s remain", len(ctrs), len(nets), c.RunID())
		}
	})
}
