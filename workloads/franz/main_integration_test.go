//go:build integration

package franz

import (
	"testing"

	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// One cluster serves every integration test of the package
// (workloadstest, as the seam's tests share theirs); TestMain tears it
// down.
func TestMain(m *testing.M) { workloadstest.Main(m) }
