package network

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order, with the draw ranks they had in
// the seam (so that a seed replays the same draws).
func TestKindsRegistered(t *testing.T) {
	nemesistest.KindsRegisteredTogether(t, kinds...)
	for _, tc := range []struct {
		k    nemesis.Kind
		rank int
	}{{partitionKind, 6}, {netemKind, 7}, {cutClientsKind, 5}} {
		if tc.k.Draw == nil || tc.k.Draw.Rank != tc.rank {
			t.Errorf("%s: draw %+v, want rank %d", tc.k.Name, tc.k.Draw, tc.rank)
		}
	}
}
