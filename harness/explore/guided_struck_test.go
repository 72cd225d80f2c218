package explore

import (
	"testing"

	"github.com/kchaos/kchaos/nemesis"
)

// TestGuidedLaterEpisodesWaitOnTheStruck: after the first episode the
// leader's id is not known (an episode may have moved it), so a broker
// fault aimed at the leader is followed by an until on the node it
// struck being fenced, and one aimed at followers by an until on them
// leaving the ISR, rather than the configs' full wait; the first
// episode's untils keep naming the preferred leader.
func TestGuidedLaterEpisodesWaitOnTheStruck(t *testing.T) {
	base := untargetedWeak(t)
	seen := map[string]int{}
	for seed := range int64(20) {
		g, err := Guide(base, seed+1, nil)
		if err != nil {
			t.Fatal(err)
		}
		steps := g.Scenario.Nemesis.Steps
		later := false // past the first episode's quiet
		for i, st := range steps {
			if st.Until != nil && len(st.Until.ISR) > 1 {
				later = true // quietSteps: the ISR whole again
			}
			if st.Fault == "" || !stopsBroker(st.Fault) || st.Target == nil || i+1 == len(steps) {
				continue
			}
			next := steps[i+1]
			role := st.Target.Role
			switch {
			case next.Until != nil && next.Until.Offline != nil:
				seen["offline"]++ // the leader taken from an ISR shrunk to it
			case !later && next.Until != nil && next.Until.Struck != "":
				t.Errorf("seed %d step %d: the first episode waits on %q, want the known leader's ids", seed+1, i+1, next.Until)
			case !later:
			case role == nemesis.RoleLeader && next.Until != nil && next.Until.Struck == nemesis.StruckFenced:
				seen["leader"]++
			case role == nemesis.RoleFollowers && next.Until != nil && next.Until.Struck == nemesis.StruckOutOfISR:
				seen["followers"]++
			case role == nemesis.RoleLeader || role == nemesis.RoleFollowers:
				t.Errorf("seed %d step %d: %s at the %s in a later episode settles with %+v, want an until on the struck", seed+1, i, st.Fault, role, next)
			}
		}
	}
	if seen["leader"] == 0 || seen["followers"] == 0 {
		t.Errorf("20 seeds' later episodes: %v strikes waited on the struck; want some at the leader and at the followers", seen)
	}
}
