package states

import (
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestLiveAgreesWithAbstract: fed a real run's events one at a time as
// the recorder's tap feeds them, Live names at each fault's or heal's
// invoke the state Abstract names as that op's before state, on every
// partition (without markers: Live reads none; with them, Project makes
// both agree on what markers change).
func TestLiveAgreesWithAbstract(t *testing.T) {
	for _, run := range []string{"real-s1", "real-s2", "real-w2-leader-moved"} {
		t.Run(run, func(t *testing.T) {
			in := readReal(t, run)
			want := Abstract(Input{Events: in.Events, Info: in.Info})
			if len(want.Transitions) == 0 {
				t.Fatal("no transitions to compare")
			}
			l := NewLive(in.Info)
			next, compared := 0, 0
			for _, e := range in.Events {
				if e.Process == histories.NemesisProcess && e.Type == histories.Invoke && isAction(e.F) {
					for next < len(want.Transitions) && want.Transitions[next].Time == e.Time {
						tr := want.Transitions[next]
						got, _, ok := l.Now(tr.Partition)
						if !ok && tr.Before.ISR != Unknown {
							t.Errorf("%s at %d: partition %d not sampled live, Abstract says %s", tr.Fault, tr.Time, tr.Partition, tr.Before)
						}
						if ok && got != tr.Before {
							t.Errorf("%s at %d on partition %d: live %s, Abstract %s", tr.Fault, tr.Time, tr.Partition, got, tr.Before)
						}
						if ok && Project(got) != Project(tr.Before) {
							t.Errorf("projected: live %s, Abstract %s", Project(got), Project(tr.Before))
						}
						next++
						compared++
					}
				}
				l.Event(e)
			}
			if compared != len(want.Transitions) {
				t.Errorf("compared %d of %d transitions", compared, len(want.Transitions))
			}
		})
	}
}

// TestProject: a projected state drops what only the run's end tells.
func TestProject(t *testing.T) {
	s := State{ISR: ISRAtMin, Leader: LeaderFenced, ELR: ELREmpty, Election: ElectionNone, Truncation: TruncNone, Quorum: same, Coordinator: Unknown}
	p := Project(s)
	if p.Truncation != Unknown || p.Leader != leaderStruck || p.ISR != ISRAtMin {
		t.Errorf("Project(%s) = %s", s, p)
	}
	for _, l := range []string{leaderPaused, leaderDown} {
		s.Leader = l
		if Project(s) != p {
			t.Errorf("a %s leader projects to %s, a fenced one to %s", l, Project(s), p)
		}
	}
	if got := ProjectText("not a state"); got != "not a state" {
		t.Errorf("ProjectText of no state: %q", got)
	}
	c := &Coverage{Runs: 1, Transitions: []Covered{
		{Before: s.String(), Fault: "kill", Role: RoleLeader, After: s.String(), Count: 1},
		{Before: State{ISR: ISRAtMin, Leader: LeaderFenced, ELR: ELREmpty, Election: ElectionNone, Truncation: TruncSeen, Quorum: same, Coordinator: Unknown}.String(),
			Fault: "kill", Role: RoleLeader, After: s.String(), Count: 2},
	}}
	if pc := c.Projected(); pc.Distinct() != 1 || pc.Transitions[0].Count != 3 {
		t.Errorf("projected coverage %+v, want the two summed into one", pc)
	}
}
