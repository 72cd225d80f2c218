package disk

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/nemesis"
)

// TestKindsRegistered: the room's kinds are registered after the kinds
// before them, together and in the room's order.
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
}
