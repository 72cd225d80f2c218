//go:build integration

package shares

import (
	"testing"

	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// One cluster serves the package's benchmark (workloadstest, as the
// seam's tests share theirs), started on first use, so that a plain
// integration run of the package, which has no test of its own on a
// cluster, starts none; TestMain tears it down.
func TestMain(m *testing.M) { workloadstest.Main(m) }
