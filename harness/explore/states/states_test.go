package states

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// st builds a State from "isr leader elr election truncation", quorum and
// coordinator unknown unless given.
func st(isr, leader, elr, election, trunc string, rest ...string) State {
	s := State{ISR: isr, Leader: leader, ELR: elr, Election: election, Truncation: trunc, Quorum: Unknown, Coordinator: Unknown}
	if len(rest) > 0 {
		s.Quorum = rest[0]
	}
	if len(rest) > 1 {
		s.Coordinator = rest[1]
	}
	return s
}

// step is a transition without its partition and time.
type step struct {
	before State
	fault  string
	role   string
	after  State
}

func (s step) key() string {
	return Transition{Before: s.before, Fault: s.fault, Role: s.role, After: s.after}.Key()
}

func readReal(t *testing.T, name string) Input {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "histories", "testdata", name)
	ev, _, err := histories.ReadFile(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	return Input{Events: ev, Info: &info}
}

// TestRecordedSeedStories: the seed stories' real runs (histories/
// testdata/real-*, Kafka 4.1.2, no logs kept: truncation and the quorum
// stay unknown) abstract into the transitions their stories tell, in
// order, on partition 0.
func TestRecordedSeedStories(t *testing.T) {
	full := st(ISRFull, LeaderAlive, ELREmpty, ElectionNone, Unknown)
	for _, c := range []struct {
		run  string
		want []step
	}{
		{"real-s1", []step{ // the ISR shrinks to the cut-off leader, which is killed: offline until it returns, elected clean
			{full, "partition-leader-followers", "links-of-leader", st(ISRAtMin, LeaderAlive, ELREmpty, ElectionNone, Unknown)},
			{st(ISRAtMin, LeaderAlive, ELREmpty, ElectionNone, Unknown), "kill", RoleLeader, st(ISRAtMin, LeaderOffline, ELREmpty, ElectionNone, Unknown)},
			{st(ISRAtMin, LeaderOffline, ELREmpty, ElectionNone, Unknown), "heal-partition", RoleNone, st(ISRAtMin, LeaderOffline, ELREmpty, ElectionNone, Unknown)},
			{st(ISRAtMin, LeaderOffline, ELREmpty, ElectionNone, Unknown), "heal-kill", RoleISR, st(ISRFull, LeaderAlive, ELREmpty, electionClean, Unknown)},
			{st(ISRFull, LeaderAlive, ELREmpty, electionClean, Unknown), "heal-all", RoleAll, st(ISRFull, LeaderAlive, ELREmpty, electionClean, Unknown)},
		}},
		{"real-s2", []step{ // as s1, then unclean election switched on: a follower outside the ISR leads
			{full, "partition-leader-followers", "links-of-leader", st(ISRAtMin, LeaderAlive, ELREmpty, ElectionNone, Unknown)},
			{st(ISRAtMin, LeaderAlive, ELREmpty, ElectionNone, Unknown), "kill", RoleLeader, st(ISRAtMin, LeaderOffline, ELREmpty, ElectionNone, Unknown)},
			{st(ISRAtMin, LeaderOffline, ELREmpty, ElectionNone, Unknown), "set-config", RoleNone, st(isrAboveMin, LeaderAlive, ELREmpty, ElectionUnclean, Unknown)},
			{st(isrAboveMin, LeaderAlive, ELREmpty, ElectionUnclean, Unknown), "heal-partition", RoleNone, st(isrAboveMin, LeaderAlive, ELREmpty, ElectionUnclean, Unknown)},
			{st(isrAboveMin, LeaderAlive, ELREmpty, ElectionUnclean, Unknown), "heal-kill", RoleOutOfISR, st(ISRFull, LeaderAlive, ELREmpty, ElectionUnclean, Unknown)},
			{st(ISRFull, LeaderAlive, ELREmpty, ElectionUnclean, Unknown), "heal-all", RoleAll, st(ISRFull, LeaderAlive, ELREmpty, ElectionUnclean, Unknown)},
		}},
		{"real-s4", []step{ // min.insync.replicas 2: the same cut leaves the ISR under it, the leader stays, no election
			{full, "partition-leader-followers", "links-of-leader", st(isrUnderMin, LeaderAlive, ELREmpty, ElectionNone, Unknown)},
			{st(isrUnderMin, LeaderAlive, ELREmpty, ElectionNone, Unknown), "heal-partition", RoleNone, full},
			{full, "heal-all", RoleAll, full},
		}},
	} {
		t.Run(c.run, func(t *testing.T) {
			res := Abstract(readReal(t, c.run))
			var got []string
			for _, tr := range res.Transitions {
				if tr.Partition != 0 {
					t.Errorf("a transition on partition %d: the run has one partition", tr.Partition)
				}
				got = append(got, tr.Key())
			}
			var want []string
			for _, s := range c.want {
				want = append(want, s.key())
			}
			if !slices.Equal(got, want) {
				t.Errorf("transitions:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
			}
			// A state after is the next op's state before: the windows tile.
			for i := 1; i < len(res.Transitions); i++ {
				if res.Transitions[i].Before != res.Transitions[i-1].After {
					t.Errorf("transition %d's before %s is not %d's after %s", i, res.Transitions[i].Before, i-1, res.Transitions[i-1].After)
				}
			}
		})
	}
}

// TestS2StoryOrder names the story the issue asks to be seen in s2's run:
// an ISR shrink to one replica, then a leader kill, then an unclean
// election.
func TestS2StoryOrder(t *testing.T) {
	res := Abstract(readReal(t, "real-s2"))
	shrink, kill, unclean := -1, -1, -1
	for i, tr := range res.Transitions {
		switch {
		case shrink < 0 && tr.Before.ISR == ISRFull && tr.After.ISR == ISRAtMin:
			shrink = i
		case shrink >= 0 && kill < 0 && tr.Fault == "kill" && tr.Role == RoleLeader && tr.After.Leader == LeaderOffline:
			kill = i
		case kill >= 0 && unclean < 0 && tr.Before.Election != ElectionUnclean && tr.After.Election == ElectionUnclean:
			unclean = i
		}
	}
	if shrink < 0 || kill < 0 || unclean < 0 {
		t.Fatalf("shrink %d, kill %d, unclean %d: want all three, in order", shrink, kill, unclean)
	}
	if m := minISR(readReal(t, "real-s2").Info); m != 1 {
		t.Errorf("min.insync.replicas %d, want 1 (an ISR at min is one replica)", m)
	}
}

// h builds a synthetic history: each line "t kind ..." (t in tenths of a
// second).
type h struct {
	events []histories.Event
}

func (x *h) add(tenths int64, proc int, typ histories.Type, f string, v any) *h {
	b, _ := json.Marshal(v)
	x.events = append(x.events, histories.Event{Index: int64(len(x.events)), Time: tenths * 1e8, Process: proc, Type: typ, F: f, Value: b})
	return x
}

func (x *h) obs(tenths int64, leader, epoch int32, isr, elr []int32, hw int64, leo map[string]int64) *h {
	return x.add(tenths, histories.ObserverProcess, histories.OK, histories.FObserve, histories.ObserveValue{Topic: "t",
		Partition: 0, Leader: leader, LeaderEpoch: epoch, ISR: isr, ELR: elr, HighWatermark: hw, LogEndOffsets: leo})
}

func (x *h) op(tenths int64, f string, nodes []int32, details map[string]any) *h {
	x.add(tenths, histories.NemesisProcess, histories.Invoke, f, histories.NemesisValue{Fault: f, Details: details})
	return x.add(tenths, histories.NemesisProcess, histories.OK, f, histories.NemesisValue{Fault: f, Nodes: nodes, Details: details})
}

func (x *h) heal(tenths int64, kind string, nodes []int32) *h {
	x.add(tenths, histories.NemesisProcess, histories.Invoke, histories.FHeal, histories.NemesisValue{Fault: kind})
	return x.add(tenths, histories.NemesisProcess, histories.OK, histories.FHeal, histories.NemesisValue{Fault: kind, Nodes: nodes})
}

func (x *h) quorum(tenths int64, leader, epoch int32) *h {
	return x.add(tenths, histories.ObserverProcess, histories.OK, histories.FQuorum, histories.QuorumValue{LeaderID: leader, LeaderEpoch: epoch})
}

var info3 = &histories.RunInfo{Topic: "t", Replication: 3, TopicConfigs: map[string]string{"min.insync.replicas": "2"}, Controllers: []int32{1000}}

// TestSynthetic: each component from the evidence that decides it, and
// unknown where there is none.
func TestSynthetic(t *testing.T) {
	all := []int32{0, 1, 2}
	for _, c := range []struct {
		name    string
		hist    *h
		markers []Marker
		read    bool
		info    *histories.RunInfo
		want    []string // "fault@role: component=value ..." checked on the after state of each transition
	}{
		{"pause the leader: paused, then fenced by the controller's marker", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FPause, []int32{0}, nil).obs(20, 0, 0, all, nil, 5, nil).heal(50, "pause", nil),
			[]Marker{{Name: MarkerFenced, Node: 1000, Time: 40e8, Fields: map[string]string{"broker": "0"}}}, true, info3,
			[]string{"pause@leader: leader=fenced truncation=none", "heal-pause@none: leader=alive"}},
		{"pause the leader, no logs: paused, truncation unknown", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FPause, []int32{0}, nil).heal(50, "pause", nil), nil, false, info3,
			[]string{"pause@leader: leader=paused truncation=unknown", "heal-pause@none: leader=alive"}},
		{"kill a follower: under min, the leader alive", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FKill, []int32{1, 2}, nil).obs(20, 0, 0, []int32{0}, nil, 5, nil), nil, false, info3,
			[]string{"kill@followers: isr=under-min leader=alive election=none"}},
		{"ELR election after the ISR emptied", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FKill, []int32{0}, nil).obs(20, -1, 1, []int32{0}, []int32{1}, -1, nil).
			op(30, histories.FStart, []int32{1}, nil).obs(40, 1, 2, []int32{1}, nil, 5, nil), nil, false, info3,
			[]string{"kill@leader: leader=offline elr=non-empty", "start@elr: election=elr isr=under-min"}},
		{"the controller's UNCLEAN marker wins over the samples", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FKill, []int32{0}, nil).obs(20, 1, 1, []int32{1, 2}, nil, 5, nil),
			[]Marker{{Name: MarkerUncleanElection, Node: 1000, Time: 25e8, Partition: "t-0"}}, true, info3,
			[]string{"kill@leader: election=unclean isr=at-min"}},
		{"a marker of another topic is not evidence", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FKill, []int32{0}, nil).obs(20, 1, 1, []int32{1, 2}, nil, 5, nil),
			[]Marker{{Name: MarkerUncleanElection, Time: 25e8, Partition: "other-0"}, {Name: MarkerTruncateBelowHW, Time: 25e8, Partition: "other-0"}}, true, info3,
			[]string{"kill@leader: election=clean truncation=none"}},
		{"truncation: a replica's log end went back below the high watermark", new(h).
			obs(0, 0, 0, all, nil, 10, map[string]int64{"0": 10, "1": 10, "2": 10}).
			op(10, histories.FLoseUnflushed, []int32{1}, nil).obs(20, 0, 0, all, nil, 10, map[string]int64{"0": 12, "1": 7, "2": 12}), nil, false, info3,
			[]string{"lose-unflushed@followers: truncation=seen leader=alive"}},
		{"a lagging follower is no truncation", new(h).
			obs(0, 0, 0, all, nil, 10, map[string]int64{"0": 10, "1": 10, "2": 10}).
			op(10, histories.FPartition, []int32{0, 1, 2}, map[string]any{"shape": "leader-followers", "target": map[string]any{"role": "leader"}}).
			obs(20, 0, 0, []int32{0}, nil, 30, map[string]int64{"0": 30, "1": 10, "2": 10}), nil, false, info3,
			[]string{"partition-leader-followers@links-of-leader: truncation=unknown isr=under-min"}},
		{"quorum leader changed by a kill of the controller, then same", new(h).obs(0, 0, 0, all, nil, 5, nil).quorum(0, 1000, 3).
			op(10, histories.FKill, []int32{1000}, nil).quorum(20, 1001, 4).heal(30, "kill", nil), nil, false, info3,
			[]string{"kill@controller: quorum=changed", "heal-kill@none: quorum=same"}},
		{"no quorum samples: unknown", new(h).obs(0, 0, 0, all, nil, 5, nil).op(10, histories.FKill, []int32{1000}, nil), nil, false, info3,
			[]string{"kill@controller: quorum=unknown coordinator=unknown"}},
		{"coordinator moved", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FMoveCoordinator, []int32{2}, map[string]any{"leaders_before": map[string]any{"3": 0.0}, "leaders_after": map[string]any{"3": 2.0}}).
			op(20, histories.FKill, []int32{2}, nil), nil, false, info3,
			[]string{"move-coordinator@followers: coordinator=changed", "kill@followers: coordinator=same"}},
		{"no run.json: the ISR level is unknown", new(h).obs(0, 0, 0, all, nil, 5, nil).op(10, histories.FKill, []int32{0}, nil).
			obs(20, 1, 1, []int32{1, 2}, nil, 5, nil), nil, false, nil,
			[]string{"kill@leader: isr=unknown election=clean"}},
		{"healing the followers' pause leaves the killed leader fenced; the UNCLEAN line names the new leader", new(h).obs(0, 0, 0, all, nil, 5, nil).
			op(10, histories.FPause, []int32{1, 2}, nil).obs(20, 0, 0, []int32{0}, nil, 5, nil).op(30, histories.FKill, []int32{0}, nil).
			heal(60, "pause", []int32{1, 2}).heal(70, "kill", []int32{0}),
			[]Marker{{Name: MarkerFenced, Node: 1000, Time: 40e8, Fields: map[string]string{"broker": "0"}},
				{Name: MarkerUncleanElection, Node: 1000, Time: 65e8, Partition: "t-0", Fields: map[string]string{"leader": "1", "leader_epoch": "1"}}}, true, info3,
			[]string{"pause@followers: isr=under-min leader=alive", "kill@leader: leader=fenced", "heal-pause@out-of-isr: leader=alive election=unclean isr=under-min", "heal-kill@out-of-isr: leader=alive"}},
		{"an op before the first sample: unknown before, unknown role", new(h).op(0, histories.FKill, []int32{0}, nil).obs(10, 1, 1, []int32{1, 2}, nil, 5, nil), nil, false, info3,
			[]string{"kill@unknown: isr=at-min leader=alive"}},
		{"an until that held fences a broker", new(h).obs(0, 0, 0, all, nil, 5, nil).op(10, histories.FKill, []int32{0}, nil).
			add(20, histories.NemesisProcess, histories.Invoke, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil}).
			add(30, histories.NemesisProcess, histories.OK, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: histories.Until{Fenced: []int32{0}, Held: true}.Details()}),
			nil, false, info3,
			[]string{"kill@leader: leader=fenced"}},
		{"an until on the struck nodes that held fences them", new(h).obs(0, 0, 0, all, nil, 5, nil).op(10, histories.FKill, []int32{0}, nil).
			add(20, histories.NemesisProcess, histories.Invoke, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil}).
			add(30, histories.NemesisProcess, histories.OK, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil,
				Details: histories.Until{Struck: histories.StruckFenced, StruckNodes: []int32{0}, Held: true}.Details()}),
			nil, false, info3,
			[]string{"kill@leader: leader=fenced"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Abstract(Input{Events: c.hist.events, Markers: c.markers, MarkersRead: c.read, Info: c.info})
			if len(res.Transitions) != len(c.want) {
				t.Fatalf("%d transitions, want %d: %v", len(res.Transitions), len(c.want), res.Transitions)
			}
			for i, w := range c.want {
				head, comps, _ := strings.Cut(w, ": ")
				tr := res.Transitions[i]
				if got := tr.Fault + "@" + tr.Role; got != head {
					t.Errorf("transition %d: %s, want %s", i, got, head)
				}
				after := " " + tr.After.String() + " "
				for _, kv := range strings.Fields(comps) {
					if !strings.Contains(after, " "+kv+" ") {
						t.Errorf("transition %d (%s): after %s, want %s", i, head, tr.After, kv)
					}
				}
			}
		})
	}
}

// TestParseRoundTrip: a state reads back from its text.
func TestParseRoundTrip(t *testing.T) {
	s := st(ISRAtMin, LeaderFenced, elrNonEmpty, electionELR, TruncSeen, changed, same)
	got, err := Parse(s.String())
	if err != nil || got != s {
		t.Errorf("Parse(%s) = %v, %v", s, got, err)
	}
	for _, bad := range []string{"isr", "colour=red", "isr="} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

// TestCoverageSum: a run's coverage counts each transition once per
// time it happened; summing two runs returns what the second covered
// anew, and the file reads back as written.
func TestCoverageSum(t *testing.T) {
	s1, s2 := Of(Abstract(readReal(t, "real-s1"))), Of(Abstract(readReal(t, "real-s2")))
	var total Coverage
	if fresh := total.Add(s1); len(fresh) != s1.Distinct() {
		t.Errorf("first run: %d new, want all %d", len(fresh), s1.Distinct())
	}
	fresh := total.Add(s2)
	// s2 shares s1's first two transitions (the cut, the kill).
	if len(fresh) != s2.Distinct()-2 {
		t.Errorf("s2 after s1: %d new of %d, want all but the cut and the kill:\n%v", len(fresh), s2.Distinct(), fresh)
	}
	if total.Runs != 2 || total.Distinct() != s1.Distinct()+len(fresh) {
		t.Errorf("sum: %d runs, %d distinct", total.Runs, total.Distinct())
	}
	if again := total.Add(s2); len(again) != 0 {
		t.Errorf("s2 again: %d new, want 0", len(again))
	}
	path := filepath.Join(t.TempDir(), CoverageFile)
	if err := total.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil || !slices.Equal(keysOf(back), keysOf(&total)) || back.Runs != 3 {
		t.Errorf("read back: %v, %d runs, keys equal %t", err, back.Runs, slices.Equal(keysOf(back), keysOf(&total)))
	}
	for _, c := range total.Transitions {
		if c.Fault == "kill" && c.Role == RoleLeader && c.Count != 3 {
			t.Errorf("kill@leader counted %d, want 3 (s1, s2, s2)", c.Count)
		}
	}
	if n := total.faults()["kill@"+RoleLeader]; n != 1 {
		t.Errorf("kill@leader: %d distinct transitions, want 1", n)
	}
}

// TestCoverageSampled: a transition from before a partition's first
// sample is recorded but not coverage: Distinct and Add's new ones leave
// it out, Unsampled counts it, and the file keeps it.
func TestCoverageSampled(t *testing.T) {
	var unknown Input
	unknownText := (&tracker{in: unknown}).unknownState().String()
	healthy := "isr=full leader=alive elr=empty election=none truncation=none quorum=same coordinator=unknown"
	offline := "isr=unknown leader=offline elr=empty election=clean truncation=none quorum=same coordinator=unknown"
	for _, c := range []struct {
		before string
		want   bool
	}{
		{unknownText, false},
		{"isr=unknown leader=unknown elr=unknown election=unknown truncation=unknown quorum=same coordinator=unknown", false},
		{healthy, true},
		// Sampled without a leader: the ISR unknown is the observer's.
		{offline, true},
		// Not a state kchaos writes: counted as recorded.
		{"S", true},
	} {
		if got := (Covered{Before: c.before}).Sampled(); got != c.want {
			t.Errorf("Sampled(%q) = %v, want %v", c.before, got, c.want)
		}
	}
	run := &Coverage{Runs: 1}
	for _, tr := range []Covered{
		{Before: unknownText, Fault: "pause", Role: Unknown, After: healthy, Count: 1},
		{Before: healthy, Fault: "kill", Role: RoleLeader, After: offline, Count: 1},
		{Before: offline, Fault: "heal-kill", Role: RoleLeader, After: healthy, Count: 1},
	} {
		run.add(tr)
	}
	run.sort()
	if run.Distinct() != 2 || run.Unsampled() != 1 {
		t.Errorf("a run: %d distinct, %d unsampled; want 2 and 1", run.Distinct(), run.Unsampled())
	}
	// The faults' own: the kill; not the unsampled pause, not the heal.
	if n := run.DistinctFaults(); n != 1 {
		t.Errorf("a run: %d distinct fault transitions, want 1 (the kill)", n)
	}
	if k, ok := HealedKind(HealName("kill")); !ok || k != "kill" {
		t.Errorf("HealedKind(HealName(kill)) = %q, %v", k, ok)
	}
	if _, ok := HealedKind("kill"); ok {
		t.Error("kill read as a heal")
	}
	var total Coverage
	if fresh := total.Add(run); len(fresh) != 2 || slices.ContainsFunc(fresh, func(c Covered) bool { return !c.Sampled() }) {
		t.Errorf("new in the first run: %v, want the two sampled", fresh)
	}
	path := filepath.Join(t.TempDir(), CoverageFile)
	if err := total.Write(path); err != nil {
		t.Fatal(err)
	}
	if back, err := Read(path); err != nil || len(back.Transitions) != 3 || back.Distinct() != 2 {
		t.Errorf("read back: %v, %+v; want all three kept, two counted", err, back)
	}
	if (*Coverage)(nil).Unsampled() != 0 {
		t.Error("nil coverage: unsampled not 0")
	}
}

// TestRecordedEarlyStrike: a real random run (histories/testdata/
// real-random-early-strike, issue 40's untargeted weak config on 4.4.0,
// its first 9.7 s) whose schedule paused broker 2 7 ms in, 175 ms before
// the observer's first sample: on both partitions that pause starts from
// the unknown state, is recorded, and is not coverage; the power loss and
// the heal after it are.
func TestRecordedEarlyStrike(t *testing.T) {
	a := Abstract(readReal(t, "real-random-early-strike"))
	shrunk := "isr=above-min leader=alive elr=empty election=none truncation=unknown quorum=same coordinator=unknown"
	var got []string
	for _, tr := range a.Transitions {
		got = append(got, fmt.Sprintf("%d %s@%s sampled=%v", tr.Partition, tr.Fault, tr.Role, tr.Before.Sampled()))
		if tr.Fault == "pause" && (tr.Before.Sampled() || tr.Role != Unknown || tr.After.String() != shrunk) {
			t.Errorf("partition %d: the early pause %s@%s from %s to %s; want from the unknown state at role unknown to %s",
				tr.Partition, tr.Fault, tr.Role, tr.Before, tr.After, shrunk)
		}
	}
	want := []string{
		"0 pause@unknown sampled=false", "1 pause@unknown sampled=false",
		"0 lose-unflushed@out-of-isr sampled=true", "1 lose-unflushed@out-of-isr sampled=true",
		"0 heal-pause@none sampled=true", "1 heal-pause@none sampled=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("transitions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The two partitions' transitions are alike: three distinct, one of
	// them (the pause) before a sample.
	if c := Of(a); len(c.Transitions) != 3 || c.Distinct() != 2 || c.Unsampled() != 1 {
		t.Errorf("coverage: %d recorded, %d distinct, %d unsampled; want 3, 2, 1", len(c.Transitions), c.Distinct(), c.Unsampled())
	}
}
