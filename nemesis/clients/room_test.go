package clients

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order, and none is drawn by a random
// schedule, as none was in the seam (so that a seed replays the same
// draws).
func TestKindsRegistered(t *testing.T) {
	nemesistest.KindsRegisteredTogether(t, kinds...)
	nemesistest.NotDrawn(t, kinds...)
}
