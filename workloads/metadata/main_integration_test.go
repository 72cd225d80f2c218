//go:build integration

package metadata

import (
	"context"
	"testing"

	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// One cluster serves every integration test of the package
// (workloadstest, as the seam's tests share theirs); TestMain tears it
// down.
func TestMain(m *testing.M) { workloadstest.Main(m) }

// prepareDriver readies cfg's driver before a test's clock starts, as the
// seam's tests do (workloads/cluster_test.go): a driver with work to do
// before its first client says so by a Prepare method (driver java builds
// its client for cfg's version). The driver is found in the registry,
// which the package's external test file links (drivers_test.go).
func prepareDriver(ctx context.Context, t testing.TB, cfg workloads.Config) {
	t.Helper()
	d, ok := workloads.DriverFor(cfg.Driver)
	if !ok {
		t.Fatalf("driver %q is not linked", cfg.Driver)
	}
	if p, ok := d.(interface {
		Prepare(context.Context, workloads.Config) error
	}); ok {
		if err := p.Prepare(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
}
