package quorum

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/nemesis"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order (theirs on the seam's list before
// they moved), none drawn by a random schedule (so that no seed's draws
// change), and the voter changes say which way they change the voter set
// (the seam's scenario check follows them).
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
	voters := map[string]int{addControllerKind.Name: 1, removeControllerKind.Name: -1}
	for _, k := range kinds {
		if k.Draw != nemesis.NotDrawn {
			t.Errorf("%s: draw %+v, want NotDrawn", k.Name, k.Draw)
		}
		if k.VoterChange != voters[k.Name] {
			t.Errorf("%s: voter change %d, want %d", k.Name, k.VoterChange, voters[k.Name])
		}
	}
}
