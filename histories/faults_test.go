package histories

import (
	"slices"
	"testing"
)

func TestFaultVocabulary(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range allFaults() {
		if seen[f.Name] {
			t.Errorf("%s described twice", f.Name)
		}
		seen[f.Name] = true
		if f.Label == "" || f.Color == "" {
			t.Errorf("%s: no label or colour", f.Name)
		}
		lasting := f.Effect == Lasting
		if lasting != (f.Heal != "") || lasting != (len(f.UndoneBy) > 0) {
			t.Errorf("%s (%s): heal %q, undone by %v: only lasting faults have both", f.Name, f.Effect, f.Heal, f.UndoneBy)
		}
		if lasting && !slices.Contains(f.UndoneBy, FHeal) {
			t.Errorf("%s: a heal must undo every lasting fault", f.Name)
		}
		for _, u := range f.UndoneBy {
			if k := KindOf(u); k != Undo && u != FRestart {
				t.Errorf("%s is undone by %s of kind %q", f.Name, u, k)
			}
		}
	}
	if got := HealKinds(); !slices.Equal(got, []string{HealMember, FKill, HealDisk, FPartition, FNetem, FPause, HealRequests}) {
		t.Errorf("HealKinds = %v", got)
	}
	for _, tc := range []struct {
		heal, fault string
		want        bool
	}{
		{"", FPartition, true}, {HealAll, FKill, true}, {FHeal, FPause, true},
		{FKill, FLoseUnflushed, true}, {FKill, FKill, true}, {FKill, FPause, false},
		{FPartition, FPartition, true}, {FPause, FPartition, false},
		{HealMember, FMemberKill, true}, {HealMember, FMemberLeave, true}, {HealMember, FKill, false}, {FKill, FMemberKill, false},
		{FPartition, FCutClients, true}, {FNetem, FCutClients, false},
		{FNetem, FNetem, true}, {FPartition, FNetem, false}, {HealAll, FNetem, true},
		{HealDisk, FDiskFail, true}, {HealDisk, FDiskFull, true}, {FKill, FDiskFail, false}, {HealDisk, FKill, false},
	} {
		if got := HealCovers(tc.heal, tc.fault); got != tc.want {
			t.Errorf("HealCovers(%q, %q) = %v", tc.heal, tc.fault, got)
		}
	}
	if !Undoes(FResume, FPause) || Undoes(FResume, FKill) || !Undoes(FRestart, FLoseUnflushed) || Undoes(FHeal, FSetConfig) {
		t.Error("Undoes disagrees with the table")
	}
	if FaultColor("no-such-fault") != OtherFaultColor || FaultColor(FKill) == OtherFaultColor {
		t.Error("FaultColor")
	}
}

// TestOnClients: the ops that act on kchaos's own clients are told from
// those that act on the cluster (checker/share orders deliveries across
// the latter by time, as a leader change may drop acquisitions).
func TestOnClients(t *testing.T) {
	for _, tc := range []struct {
		f    string
		want bool
	}{
		{FMemberKill, true}, {FMemberLeave, true}, {FMemberStall, true}, {FMemberStart, true},
		{FProducerCrash, true}, {FStopProducers, true},
		{FKill, false}, {FLoseUnflushed, false}, {FPartition, false}, {FMoveLeader, false},
		{FMoveCoordinator, false}, {FSetConfig, false}, {FRestart, false}, {"no-such-op", false},
	} {
		if got := OnClients(tc.f); got != tc.want {
			t.Errorf("OnClients(%q) = %v, want %v", tc.f, got, tc.want)
		}
	}
}
