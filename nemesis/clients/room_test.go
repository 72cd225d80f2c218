package clients

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/nemesis"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order, and none is drawn by a random
// schedule, as none was in the seam (so that a seed replays the same
// draws).
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
	for _, k := range kinds {
		if k.Draw != nemesis.NotDrawn {
			t.Errorf("%s: draw %+v, want NotDrawn", k.Name, k.Draw)
		}
	}
}
