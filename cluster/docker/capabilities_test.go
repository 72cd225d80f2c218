package docker

import (
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// TestCapabilitiesMatchCode: the declared set and the interfaces the
// backend implements say the same (a declared disk capability without
// cluster.Disks, or the other way round, is refused).
func TestCapabilitiesMatchCode(t *testing.T) {
	if err := cluster.CheckCapabilities(&Cluster{}); err != nil {
		t.Fatal(err)
	}
	if got := (&Cluster{}).Capabilities(); got != cluster.AllCaps() {
		t.Errorf("docker declares %s, want every capability (%s)", got, cluster.AllCaps())
	}
}
