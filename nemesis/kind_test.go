package nemesis

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestKindsDecide: every registered kind says everything kchaos needs of
// it (how it ends, whether it is drawn, its colour, whether it may lose
// acked records or move leaders, its proof), so that no list elsewhere
// decides for it; and what it says holds (a Proved kind's fault is a
// Prover, a drawn kind is one a heal undoes or that ends by itself).
func TestKindsDecide(t *testing.T) {
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) { checkKindDecides(t, k) })
	}
}

func checkKindDecides(t *testing.T, k Kind) {
	t.Helper()
	if k.Heal == nil {
		t.Error("heal undecided: a HealKind, Instant or UndoOp")
	} else if k.lasting() && (k.Heal.Name == "" || k.Heal.Heal == nil) {
		t.Errorf("heal kind %q has no name or no heal", k.Heal.Name)
	}
	if !k.lasting() && len(k.UndoneBy) > 0 {
		t.Errorf("undone by %v, but not lasting", k.UndoneBy)
	}
	if k.Draw == nil {
		t.Error("draw undecided: a Draw or NotDrawn")
	} else if k.Draw != NotDrawn && k.Heal == UndoOp {
		t.Error("an undo op is drawn")
	}
	if k.Color == "" {
		t.Error("no colour")
	}
	if k.LosesAcked == undecided {
		t.Error("loses-acked undecided: Yes or No")
	}
	if k.MovesLeaders == undecided {
		t.Error("moves-leaders undecided: Yes or No")
	}
	if k.Proof == "" {
		t.Error("proof undecided: Proved, or why none")
	}
	if f, ok := histories.LookupFault(k.Name); !ok || f.Color != k.Color || f.CanLoseAcked != (k.LosesAcked == Yes) {
		t.Errorf("histories describes it as %+v (%v), not as the kind does", f, ok)
	}
	if k.lasting() && k.Heal.resolved().named {
		t.Errorf("heal %s is named (HealNamed), but no registered kind owns it", k.Heal.Name)
	}
	if k.lasting() && !slices.Contains(healNames(), k.Heal.Name) {
		t.Errorf("heal %s is not a heal a step may name (%v)", k.Heal.Name, healNames())
	}
	if k.New == nil {
		return
	}
	f := k.New().Build(Step{Fault: k.Name, Target: &Target{Role: RoleLeader}})
	if _, prover := f.(Prover); prover != (k.Proof == Proved) {
		t.Errorf("proof %q, but its fault implements Prover: %v", k.Proof, prover)
	}
}

// TestHealNamed: a heal another room names (lose-unflushed's, kill's in
// nemesis/process) is the heal its owner registered, counted once in a
// heal all; a name no registered kind's heal bears stays a heal that
// fails when it runs.
func TestHealNamed(t *testing.T) {
	kill, _ := LookupKind(histories.FKill)
	lose, _ := LookupKind(histories.FLoseUnflushed)
	for _, tc := range []struct {
		name string
		h    *HealKind
		want *HealKind
	}{
		{"lose-unflushed's is kill's", lose.Heal, kill.Heal},
		{"a name resolves when asked", HealNamed(histories.FKill), kill.Heal},
		{"the owner's own", kill.Heal, kill.Heal},
	} {
		if got := tc.h.resolved(); got != tc.want {
			t.Errorf("%s: resolved %+v, want %+v", tc.name, got, tc.want)
		}
	}
	n := 0
	for _, h := range heals() {
		if h.Name == histories.FKill {
			n++
			if h != kill.Heal {
				t.Errorf("heal all runs %+v for kill, not the kill kind's heal", h)
			}
		}
	}
	if n != 1 {
		t.Errorf("heal all runs %d heals named kill, want 1", n)
	}
	orphan := HealNamed("no-such-heal")
	if orphan.resolved() != orphan {
		t.Error("a heal no kind owns resolved to another")
	}
	if _, err := orphan.Heal(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "no registered fault kind owns it") {
		t.Errorf("heal no kind owns: %v, want an error", err)
	}
}
