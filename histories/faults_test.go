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

// TestEnds: which op ends a lasting fault on which nodes.
func TestEnds(t *testing.T) {
	for _, tc := range []struct {
		name              string
		op, heal          string
		opNodes, fltNodes []int32
		fault             string
		want              bool
	}{
		{"heal all ends a cut", FHeal, HealAll, nil, []int32{0}, FPartition, true},
		{"a partition heal ends a cut", FHeal, FPartition, nil, []int32{0}, FPartition, true},
		{"a partition heal does not resume a pause", FHeal, FPartition, nil, []int32{1}, FPause, false},
		{"a kill heal on the killed node", FHeal, FKill, []int32{2}, []int32{2}, FKill, true},
		{"a kill heal on another node", FHeal, FKill, []int32{1}, []int32{2}, FKill, false},
		{"a restart is no heal of a cut", FRestart, "", nil, []int32{0}, FPartition, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ends(tc.op, tc.heal, tc.opNodes, tc.fault, tc.fltNodes); got != tc.want {
				t.Fatalf("Ends(%s %q on %v, %s on %v) = %v, want %v", tc.op, tc.heal, tc.opNodes, tc.fault, tc.fltNodes, got, tc.want)
			}
		})
	}
}
