package network

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/nemesis"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order, with the draw ranks they had in
// the seam (so that a seed replays the same draws).
func TestKindsRegistered(t *testing.T) {
	var names, want []string
	for _, k := range nemesis.Kinds() {
		names = append(names, k.Name)
	}
	for _, k := range kinds {
		want = append(want, k.Name)
	}
	i := slices.Index(names, want[0])
	if i < 0 || i+len(want) > len(names) || !slices.Equal(names[i:i+len(want)], want) {
		t.Errorf("registered: %v; want %v together, in that order", names, want)
	}
	for _, tc := range []struct {
		k    nemesis.Kind
		rank int
	}{{partitionKind, 6}, {netemKind, 7}, {cutClientsKind, 5}} {
		if tc.k.Draw == nil || tc.k.Draw.Rank != tc.rank {
			t.Errorf("%s: draw %+v, want rank %d", tc.k.Name, tc.k.Draw, tc.rank)
		}
	}
}
