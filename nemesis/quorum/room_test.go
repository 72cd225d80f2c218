package quorum

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order (theirs on the seam's list before
// they moved), none drawn by a random schedule (so that no seed's draws
// change), and the voter changes say which way they change the voter set
// (the seam's scenario check follows them).
func TestKindsRegistered(t *testing.T) {
	nemesistest.KindsRegisteredTogether(t, kinds...)
	nemesistest.NotDrawn(t, kinds...)
	voters := map[string]int{addControllerKind.Name: 1, removeControllerKind.Name: -1}
	for _, k := range kinds {
		if k.VoterChange != voters[k.Name] {
			t.Errorf("%s: voter change %d, want %d", k.Name, k.VoterChange, voters[k.Name])
		}
	}
}
