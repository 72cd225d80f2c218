//go:build integration

package workloads

import (
	"context"
	"testing"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// One cluster serves every integration test and benchmark of the package
// (workloadstest, shared with the driver packages' tests); TestMain tears
// it down. The helpers below are its steps under the names the tests use.
func TestMain(m *testing.M) { workloadstest.Main(m) }

// tb is what testing.T and testing.B share that the helpers use.
type tb = workloadstest.TB

// sharedCluster starts the cluster on first use. It fails the test when
// Docker or the Kafka image is missing.
func sharedCluster(t tb) *docker.Cluster { t.Helper(); return workloadstest.Cluster(t) }

// sharedAdmin is sharedCluster with an admin client, closed when the test
// ends.
func sharedAdmin(t tb) (*docker.Cluster, *admin.Client) { t.Helper(); return workloadstest.Admin(t) }

// newHistory creates history.jsonl in dir and returns its path and the
// recorder writing it.
func newHistory(t tb, dir string) (string, *histories.Recorder) {
	t.Helper()
	return workloadstest.NewHistory(t, dir)
}

// createTopic creates topic with the assignment and min.insync.replicas 2.
func createTopic(t tb, adm *admin.Client, topic string, assignment [][]int32) {
	t.Helper()
	workloadstest.CreateTopic(t, adm, topic, assignment)
}

// waitISR waits until every partition of topic has exactly isr.
var waitISR = workloadstest.WaitISR

// prepareDriver readies cfg's driver before a test's clock starts: a
// driver with work to do before its first client says so by a Prepare
// method (driver java builds its client for cfg's version; the first
// build resolves kafka-clients through Maven). The driver is found in the
// registry, which the package's external test file links
// (drivers_test.go).
func prepareDriver(ctx context.Context, t tb, cfg Config) {
	t.Helper()
	d, ok := DriverFor(canonicalDriver(cfg.Driver))
	if !ok {
		t.Fatalf("driver %q is not linked", cfg.Driver)
	}
	if p, ok := d.(interface {
		Prepare(context.Context, Config) error
	}); ok {
		if err := p.Prepare(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
}
