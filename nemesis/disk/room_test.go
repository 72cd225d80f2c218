package disk

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order.
func TestKindsRegistered(t *testing.T) {
	nemesistest.KindsRegisteredTogether(t, kinds...)
}
