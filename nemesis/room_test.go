package nemesis

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestRegisterRefusesADuplicate: a room that registers a name already
// taken (by the seam or another room) panics at init, and the registry
// stays as it was.
func TestRegisterRefusesADuplicate(t *testing.T) {
	before := Kinds()
	for _, name := range []string{histories.FPartition, ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(Kind{Name: name, Heal: Instant, Draw: NotDrawn})
		}()
	}
	if got := Kinds(); !slices.EqualFunc(got, before, func(a, b Kind) bool { return a.Name == b.Name }) {
		t.Errorf("registry changed by a refused Register")
	}
}

// TestRoomState: a room's state is one value per Env and type, zero until
// first asked for, never another Env's or another type's.
func TestRoomState(t *testing.T) {
	type a struct{ n int }
	type b struct{ n int }
	var e1, e2 Env
	RoomState[a](&e1).n = 1
	if got := RoomState[a](&e1).n; got != 1 {
		t.Errorf("same Env and type: %d, want 1", got)
	}
	if got := RoomState[b](&e1).n; got != 0 {
		t.Errorf("another type: %d, want 0", got)
	}
	if got := RoomState[a](&e2).n; got != 0 {
		t.Errorf("another Env: %d, want 0", got)
	}
}
