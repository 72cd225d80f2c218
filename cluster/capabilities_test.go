package cluster

import "testing"

func TestCaps(t *testing.T) {
	for _, tc := range []struct {
		name      string
		set, want Caps
		has       bool
		missing   string
		setString string
	}{
		{"empty wants nothing", NewCaps(), NewCaps(), true, "none", "none"},
		{"subset", NewCaps(CapPartition, CapKill, CapPause), NewCaps(CapKill), true, "none", "partition, pause, kill"},
		{"one missing", NewCaps(CapPartition, CapKill), NewCaps(CapKill, CapNetem), false, "netem", "partition, kill"},
		{"all missing", NewCaps(), NewCaps(CapDisk, CapUpgrade), false, "disk, upgrade", "none"},
		{"all", AllCaps(), NewCaps(CapClientCut, CapPowerLoss), true, "none",
			"partition, netem, pause, kill, disk, client-cut, power-loss, upgrade, bootstrap, inter-broker-route"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.Has(tc.want); got != tc.has {
				t.Errorf("Has = %v, want %v", got, tc.has)
			}
			if got := tc.set.Missing(tc.want).String(); got != tc.missing {
				t.Errorf("Missing = %q, want %q", got, tc.missing)
			}
			if got := tc.set.String(); got != tc.setString {
				t.Errorf("String = %q, want %q", got, tc.setString)
			}
		})
	}
}
