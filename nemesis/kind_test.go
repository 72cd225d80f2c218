package nemesis

import (
	"slices"
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
