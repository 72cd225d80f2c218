package process

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order, with the draw ranks they
// had in the seam (so that a seed replays the same draws).
func TestKindsRegistered(t *testing.T) {
	nemesistest.KindsRegisteredTogether(t, kinds...)
	nemesistest.DrawRank(t, pauseKind, 1)
	nemesistest.DrawRank(t, killKind, 2)
	nemesistest.DrawRank(t, restartKind, 3)
	nemesistest.DrawRank(t, resumeKind, 0)
	nemesistest.DrawRank(t, startKind, 0)
}
