package network

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order, with the draw ranks they had in
// the seam (so that a seed replays the same draws).
func TestKindsRegistered(t *testing.T) {
	nemesistest.KindsRegisteredTogether(t, kinds...)
	nemesistest.DrawRank(t, partitionKind, 6)
	nemesistest.DrawRank(t, netemKind, 7)
	nemesistest.DrawRank(t, cutClientsKind, 5)
}
