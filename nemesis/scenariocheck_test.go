package nemesis

import (
	"fmt"
	"strings"
	"testing"
)

// voterFixtureParams are the parameters of the fixture voter-change
// kinds: none, valid alone.
type voterFixtureParams struct{}

func (*voterFixtureParams) Validate(string, *Step, AddFunc) {}
func (*voterFixtureParams) Build(Step) Fault                { return nil }

// TestCheckReconfigFollowsVoterChange: the seam refuses voter changes the
// scenario's quorum cannot make by each kind's Kind.VoterChange alone,
// following the scripted steps in order (nemesis/quorum's add-controller
// and remove-controller are such kinds; harness/scenario's
// TestReconfigValidation checks them by name). Two fixture kinds stand
// for them here, so that the rule is pinned in the seam that owns it.
func TestCheckReconfigFollowsVoterChange(t *testing.T) {
	const add, rm = "test-voter-add", "test-voter-remove"
	for _, k := range []Kind{{Name: add, VoterChange: 1}, {Name: rm, VoterChange: -1}} {
		k.New = func() Params { return &voterFixtureParams{} }
		k.Heal, k.Draw, k.LosesAcked, k.MovesLeaders = Instant, NotDrawn, No, No
		t.Cleanup(register(k))
	}
	dynamic := ScenarioView{Brokers: 3, Controllers: 3, Spares: 1, Partitions: 1, Dynamic: true}
	static := dynamic
	static.Dynamic = false
	for _, tc := range []struct {
		name  string
		v     ScenarioView
		steps []Step
		want  []string // the errors, in order
	}{
		{"add the spare, remove two", dynamic, []Step{{Fault: add}, {Fault: rm}, {Fault: rm}}, nil},
		{"a static quorum", static, []Step{{Fault: rm}, {Fault: add}},
			[]string{"nemesis.steps[0].fault: " + rm + " changes the voter set, which a static quorum cannot",
				"nemesis.steps[1].fault: " + add + " changes the voter set"}},
		{"no spare left", dynamic, []Step{{Fault: add}, {Fault: add}},
			[]string{"nemesis.steps[1].fault: " + add + ": no controller outside the voter set at this step"}},
		{"a removal makes a spare", dynamic, []Step{{Fault: add}, {Fault: rm}, {Fault: add}}, nil},
		{"a broker aimed at", dynamic, []Step{{Fault: add, Target: &Target{Role: RoleNodes, Nodes: []int32{1}}}},
			[]string{"nemesis.steps[0].target.nodes: node 1 is a broker: " + add + " adds a controller"}},
		{"the last voter", ScenarioView{Brokers: 3, Controllers: 1, Partitions: 1, Dynamic: true}, []Step{{Fault: rm}},
			[]string{"nemesis.steps[0].fault: " + rm + " would leave no voter (the quorum has 1 at this step)"}},
		{"other kinds change no voter", static, []Step{{Fault: "kill", Target: &Target{Role: RoleLeader}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tc.v.checkReconfig(tc.steps, func(path, format string, args ...any) {
				got = append(got, path+": "+fmt.Sprintf(format, args...))
			})
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("error %d: %q, want %q", i, got[i], w)
				}
			}
		})
	}
}

// TestCheckRoleCount: a count of a partition role may not exceed what the
// role can ever hold on the scenario's topic (followers and out-of-isr:
// the replicas less the leader; isr: the replicas), and a random count
// not the brokers; each refusal names the count's path.
func TestCheckRoleCount(t *testing.T) {
	v := ScenarioView{Brokers: 3, Controllers: 1, Partitions: 2, Assignment: [][]int32{{0, 1, 2}, {1, 2, 0}}}
	for _, tc := range []struct {
		name   string
		target Target
		want   string // the error, "" none
	}{
		{"one follower", Target{Role: RoleFollowers, Count: 1}, ""},
		{"every follower", Target{Role: RoleFollowers, Partition: 1, Count: 2}, ""},
		{"more followers than replicas less the leader", Target{Role: RoleFollowers, Count: 3},
			"nemesis.steps[0].target.count: 3: partition 0 has 3 replicas, so followers has at most 2 members"},
		{"out of the isr", Target{Role: RoleOutOfISR, Partition: 1, Count: 3},
			"nemesis.steps[0].target.count: 3: partition 1 has 3 replicas, so out-of-isr has at most 2 members"},
		{"the whole isr", Target{Role: RoleISR, Count: 3}, ""},
		{"more than the isr", Target{Role: RoleISR, Count: 4}, "nemesis.steps[0].target.count: 4: partition 0 has 3 replicas, so isr has at most 3 members"},
		{"random brokers", Target{Role: RoleRandom, Count: 4}, "nemesis.steps[0].target.count: 4: the cluster has 3 brokers"},
		{"a partition the topic lacks", Target{Role: RoleFollowers, Partition: 5, Count: 1}, "nemesis.steps[0].target.partition: 5: the topic has partitions 0..1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Schedule{Steps: []Step{{Fault: "kill", Target: &tc.target}}}
			errs := s.CheckScenario(v)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("want none, got %v", errs)
			case tc.want != "" && (len(errs) != 1 || errs[0].Error() != tc.want):
				t.Errorf("got %v, want %q", errs, tc.want)
			}
		})
	}
}
