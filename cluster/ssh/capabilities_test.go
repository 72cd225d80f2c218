package ssh

import (
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// TestCapabilitiesMatchCode: the declared set and the interfaces the
// backend implements say the same, and the faults that would outlive a
// crashed run on a user's host (or need what kchaos cannot know there)
// are not declared.
func TestCapabilitiesMatchCode(t *testing.T) {
	c := &Cluster{}
	if err := cluster.CheckCapabilities(c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    cluster.Capability
		want bool
	}{
		{cluster.CapPartition, true}, {cluster.CapPause, true}, {cluster.CapKill, true}, {cluster.CapPowerLoss, true},
		{cluster.CapNetem, false}, {cluster.CapDisk, false}, {cluster.CapClientCut, false}, {cluster.CapUpgrade, false},
	} {
		if got := c.Capabilities().Has(cluster.NewCaps(tc.c)); got != tc.want {
			t.Errorf("ssh has %s: %v, want %v", tc.c, got, tc.want)
		}
	}
}
