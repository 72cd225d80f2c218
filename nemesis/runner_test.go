package nemesis

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// recorded runs fn with an env on the fake cluster that records to a
// history (its admin deriving the leader and ISR from the cluster), and
// returns the nemesis ops it recorded: the rooms' nemesistest.Recorded,
// which this package's tests cannot import.
func recorded(t *testing.T, fn func(env *Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	env, c, a := newFakeEnv()
	a.Simulate = true
	return nemesisfake.Record(t, func(rec *histories.Recorder) {
		env.Recorder = rec
		fn(env, c, a)
	})
}

// healthy checks that the final heal left every node running, unpaused and
// without kchaos rules.
func healthy(t *testing.T, env *Env, c *fakeCluster) {
	t.Helper()
	for _, id := range env.AllNodes() {
		st, _ := c.State(context.Background(), id)
		if !st.Running || st.Paused || c.RuleCount(id) != 0 {
			t.Errorf("node %d after the final heal: %+v, %d rules", id, st, c.RuleCount(id))
		}
	}
}

// TestRunnerScripted runs the S11 story (a leader cut off from its
// followers, a follower paused, the leader killed, an unclean election by
// hand, unclean elections switched on) against the fake cluster, then a
// condition that never holds: the schedule fails and the final heal puts
// everything back.
func TestRunnerScripted(t *testing.T) {
	s, err := ParseSchedule([]byte(`
steps:
  - fault: partition
    shape: leader-followers
    target: {role: leader, partition: 0}
  - until: {partition: 0, isr: [0]}
    timeout: 2s
  - fault: pause
    target: {role: nodes, nodes: [1]}
  - fault: kill
    target: {role: leader}
  - until: {partition: 0, offline: true, fenced: [0, 1]}
    timeout: 2s
  - fault: elect-unclean
    target: {partition: 0}
  - until: {partition: 0, leader: 2}
    timeout: 2s
  - fault: set-config
    config: {unclean.leader.election.enable: "true"}
  - until: {partition: 0, leader: 0}
    timeout: 300ms
  - wait: 1h
`))
	if err != nil {
		t.Fatal(err)
	}
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		r := &Runner{Env: env, HealTimeout: 2 * time.Second}
		runErr = r.Run(context.Background(), s)
		healthy(t, env, c)
		if v := a.Configs["unclean.leader.election.enable"]; v == nil || *v != "true" {
			t.Errorf("config not set: %v", a.Configs)
		}
		if len(a.Elections) != 1 || a.Elections[0] != "t [0] unclean=true" {
			t.Errorf("elections %v", a.Elections)
		}
		// Broker 0 is killed and 1 paused: the election must go through 2
		// (a paused broker times every request out).
		if len(a.ElectVia) != 1 || a.ElectVia[0] != 2 {
			t.Errorf("elections sent via %v, want [2]", a.ElectVia)
		}
	})
	if runErr == nil || !strings.Contains(runErr.Error(), "step 8 (until partition 0 leader 0)") {
		t.Errorf("run error %v, want step 8's timeout", runErr)
	}
	want := "schedule:ok partition:ok[0 1 2] until:ok pause:ok[1] kill:ok[0] until:ok elect-unclean:ok[2] until:ok set-config:ok until:fail heal:ok[0 1]"
	if got := summary(evs); got != want {
		t.Errorf("history:\n got %s\nwant %s", got, want)
	}
	last := evs[len(evs)-1]
	if !bytes.Contains(last.Value, []byte(`"resumed":[1]`)) || !bytes.Contains(last.Value, []byte(`"started":[0]`)) ||
		!bytes.Contains(last.Value, []byte(`"fault":"all"`)) {
		t.Errorf("final heal: %s", last.Value)
	}
	var part histories.NemesisValue
	_ = evs[3].Decode(&part)
	if part.Details["shape"] != ShapeLeaderFollowers || fmt.Sprint(part.Details["grudge"]) != "map[0:[1 2] 1:[0] 2:[0]]" {
		t.Errorf("partition details: %v", part.Details)
	}
}

// TestRunnerHealsAfterPanic: a fault that panics stops the schedule, the
// panic comes back as an error, and the final heal still runs.
func TestRunnerHealsAfterPanic(t *testing.T) {
	s := Schedule{Steps: []Step{
		{Fault: histories.FKill, Target: &Target{Role: RoleNodes, Nodes: []int32{2}}},
		{Fault: histories.FPartition, Target: &Target{Role: RoleNodes, Nodes: []int32{0}}},
		{Fault: histories.FPause, Target: &Target{Role: RoleNodes, Nodes: []int32{1}}},
		{Wait: Duration(time.Hour)},
	}}
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		var fired atomic.Bool
		c.OnCall = func(call string) {
			if call == "pause 1" && !fired.Swap(true) {
				panic("docker went away")
			}
		}
		runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), s)
		healthy(t, env, c)
	})
	if runErr == nil || !strings.Contains(runErr.Error(), "panic: docker went away") {
		t.Errorf("run error %v", runErr)
	}
	// The pause that panicked is completed as info (its outcome is
	// unknown), then the heal follows.
	if got := summary(evs); got != "schedule:ok kill:ok[2] partition:ok[0 1 1000] pause:info heal:ok[2]" {
		t.Errorf("history: %s", got)
	}
	if e := evs[len(evs)-3]; e.Error != "panic: docker went away" {
		t.Errorf("pause completion error %q", e.Error)
	}
}

// TestRunnerHealsAfterCancel: Ctrl-C (ctx cancelled) during a wait ends
// the schedule at once and the final heal runs on a fresh context.
func TestRunnerHealsAfterCancel(t *testing.T) {
	s := Schedule{Steps: []Step{
		{Fault: histories.FPause, Target: &Target{Role: RoleFollowers}},
		stepOf(t, "{fault: partition, shape: racks}"),
		{Wait: Duration(time.Hour)},
	}}
	var runErr error
	begin := time.Now()
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(ctx, s)
		healthy(t, env, c)
	})
	if runErr == nil || !strings.Contains(runErr.Error(), "context canceled") {
		t.Errorf("run error %v", runErr)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("cancel took %s", took)
	}
	// Paused followers cannot take rules: only broker 0 got its side of
	// the rack cut (which still cuts both directions).
	if got := summary(evs); got != "schedule:ok pause:ok[1 2] partition:ok[0] heal:ok[1 2]" {
		t.Errorf("history: %s", got)
	}
}

// TestRunnerRandom runs a short random schedule: the history records the
// seed and the plan, the faults injected are the plan's, and the cluster
// ends healthy.
func TestRunnerRandom(t *testing.T) {
	rs := RandomSchedule{Seed: 5, Interval: Duration(60 * time.Millisecond), Duration: Duration(300 * time.Millisecond),
		Faults: []string{histories.FPause, histories.FKill, "partition-racks", histories.FRestart, histories.FLoseUnflushed}}
	plan, err := Plan(rs, []int32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, st := range plan {
		if st.Fault != "" {
			want = append(want, st.Fault)
		}
		if st.Heal != "" {
			want = append(want, histories.FHeal)
		}
	}
	// lose-unflushed on the fake has no log dir to cut: it fails, is
	// recorded as info, and the random schedule goes on.
	evs := runRandom(t, rs)
	var got []string
	for _, e := range evs[2 : len(evs)-2] {
		if e.Type == histories.Invoke {
			got = append(got, e.F)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("faults:\n got %v\nwant %v", got, want)
	}
	var sched histories.NemesisValue
	_ = evs[1].Decode(&sched)
	if evs[1].F != histories.FSchedule || sched.Details["seed"] != float64(5) || sched.Details["mode"] != "random" || sched.Details["plan"] == nil {
		t.Errorf("schedule op: %s", evs[1].Value)
	}
}

func TestRunnerInvalidScheduleStillHeals(t *testing.T) {
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		_ = c.Pause(context.Background(), 2)
		runErr = (&Runner{Env: env, HealTimeout: time.Second}).Run(context.Background(),
			Schedule{Steps: []Step{{Fault: "kil"}}})
		healthy(t, env, c)
	})
	if runErr == nil || !strings.Contains(runErr.Error(), `nemesis.steps[0].fault: unknown fault "kil"`) {
		t.Errorf("run error %v", runErr)
	}
	if got := summary(evs); got != "heal:ok[2]" {
		t.Errorf("history: %s", got)
	}
}

// TestFinalHealTimesOut: a partition that stays offline makes the final
// heal fail, bounded, and say why.
func TestFinalHealTimesOut(t *testing.T) {
	env, _, a := newFakeEnv()
	a.Parts[0].Leader = -1
	begin := time.Now()
	err := (&Runner{Env: env, HealTimeout: 300 * time.Millisecond}).FinalHeal(context.Background())
	if err == nil || !strings.Contains(err.Error(), "partitions without a leader: [0]") {
		t.Errorf("final heal: %v", err)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("final heal took %s", took)
	}
}

// TestUntilRecorded: every until is an op in the history, held (ok) or
// not within its timeout (fail), soft or not, so that a report can tell
// which branch a story took; only a required one fails the schedule.
func TestUntilRecorded(t *testing.T) {
	leader0, leader7 := int32(0), int32(7)
	for _, tc := range []struct {
		name     string
		until    Condition
		optional bool
		wantType histories.Type
		wantErr  bool
	}{
		{"held", Condition{Leader: &leader0}, false, histories.OK, false},
		{"soft, held", Condition{Leader: &leader0}, true, histories.OK, false},
		{"soft, timed out: the story goes on", Condition{Leader: &leader7}, true, histories.Fail, false},
		{"required, timed out: the schedule fails", Condition{Leader: &leader7}, false, histories.Fail, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Schedule{Steps: []Step{{Until: &tc.until, Timeout: Duration(300 * time.Millisecond), Optional: tc.optional}}}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			var err error
			evs := recorded(t, func(env *Env, _ *fakeCluster, _ *fakeAdmin) {
				err = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), s)
			})
			if (err != nil) != tc.wantErr {
				t.Errorf("run error %v, want error %t", err, tc.wantErr)
			}
			i := slices.IndexFunc(evs, func(e histories.Event) bool { return e.F == histories.FUntil && e.Type != histories.Invoke })
			if i < 0 {
				t.Fatalf("no until op recorded: %s", summary(evs))
			}
			var v histories.NemesisValue
			if err := evs[i].Decode(&v); err != nil {
				t.Fatal(err)
			}
			u, err := histories.UntilOf(v)
			if err != nil {
				t.Fatal(err)
			}
			if evs[i].Type != tc.wantType || u.Held != (tc.wantType == histories.OK) || u.Optional != tc.optional ||
				u.Condition != tc.until.String() || u.Leader == nil || *u.Leader != *tc.until.Leader || u.TimeoutMS != 300 {
				t.Errorf("until op %s %+v, want %s for %q optional %t", evs[i].Type, u, tc.wantType, tc.until, tc.optional)
			}
			if !u.Held && (u.LastSeen == "" || evs[i].Error == "") {
				t.Errorf("an until that did not hold must say what was last seen: %+v, error %q", u, evs[i].Error)
			}
		})
	}
}

// runRandom runs the random schedule rs on the fake cluster, which must
// end healthy, and returns what it recorded.
func runRandom(t *testing.T, rs RandomSchedule) []histories.Event {
	t.Helper()
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, a *fakeAdmin) {
		runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), Schedule{Random: &rs})
		healthy(t, env, c)
	})
	if runErr != nil {
		t.Errorf("run: %v", runErr)
	}
	return evs
}
