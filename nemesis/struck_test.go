package nemesis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestStruckValidation: struck takes only its two values, and only after
// a fault step, since it refers to the nodes the last one touched; a
// bootstrap schedule, whose untils wait for the quorum only, refuses it.
func TestStruckValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: valid
	}{
		{"fenced after a kill", "steps:\n - fault: kill\n   target: {role: leader}\n - until: {struck: fenced}", nil},
		{"out of isr after a pause", "steps:\n - fault: pause\n   target: {role: followers, partition: 1}\n - wait: 1s\n - until: {partition: 1, struck: out-of-isr}", nil},
		{"after a heal of a fault", "steps:\n - fault: kill\n   target: {role: leader}\n - heal: kill\n - until: {struck: fenced}", nil},
		{"with another condition", "steps:\n - fault: kill\n   target: {role: leader}\n - until: {partition: 0, offline: false, struck: out-of-isr}", nil},
		{"unknown value", "steps:\n - fault: kill\n   target: {role: leader}\n - until: {struck: dead}",
			[]string{`nemesis.steps[1].until.struck: unknown value "dead" (want fenced or out-of-isr)`}},
		{"no fault before", "steps:\n - wait: 1s\n - until: {struck: fenced}\n - fault: kill\n   target: {role: leader}",
			[]string{"nemesis.steps[1].until.struck: no fault step before this until"}},
		{"a heal is no fault", "steps:\n - heal: all\n - until: {struck: out-of-isr}",
			[]string{"nemesis.steps[1].until.struck: no fault step before this until"}},
		{"in a bootstrap", "bootstrap:\n - fault: kill\n   target: {role: nodes, nodes: [0]}\n - until: {struck: fenced}",
			[]string{"nemesis.bootstrap[1].until: while the cluster starts only quorum_leader can be waited for"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParse(t, tc.yaml, tc.want) })
	}
}

// TestStruckString: the until's text says the nodes are the last fault's,
// with their ids once the runner resolved them (what the history's until
// op and an error's "until ..." show).
func TestStruckString(t *testing.T) {
	for _, tc := range []struct {
		c    Condition
		want string
	}{
		{Condition{Struck: StruckFenced}, "the last fault's nodes fenced"},
		{Condition{Struck: StruckFenced}.WithStruck([]int32{2, 0}), "the last fault's nodes [0 2] fenced"},
		{Condition{Struck: StruckFenced}.WithStruck(nil), "the last fault's nodes [] fenced"},
		{Condition{Partition: 1, Struck: StruckOutOfISR}.WithStruck([]int32{1}), "partition 1 the last fault's nodes [1] out of isr"},
		{Condition{Partition: 0, Offline: ptr(false), Struck: StruckOutOfISR}, "partition 0 offline false, the last fault's nodes out of isr"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestWaitForStruck evaluates struck conditions against a fake state
// source with the reads fenced and isr use: the broker registrations and
// the partition's ISR. Nodes the fault never touched (none: all skipped)
// hold at once, even where the state cannot be read.
func TestWaitForStruck(t *testing.T) {
	healthy := moment{part: state(0, 0, 1, 2), live: []int32{0, 1, 2}}
	followersOut := moment{after: 150 * time.Millisecond, part: state(0, 0), live: []int32{0, 1, 2}}
	oneFenced := moment{after: 150 * time.Millisecond, part: state(0, 0, 2), live: []int32{0, 2}}
	unreadable := moment{err: fmt.Errorf("connection refused")}
	fenced := Condition{Struck: StruckFenced}
	out := Condition{Struck: StruckOutOfISR}
	for _, tc := range []struct {
		name   string
		events []moment
		c      Condition
		err    string // "" when it must hold within the timeout
	}{
		{"fenced", []moment{healthy, oneFenced}, fenced.WithStruck([]int32{1}), ""},
		{"fenced: every one", []moment{healthy, oneFenced}, fenced.WithStruck([]int32{1, 2}), "live brokers [0 2]"},
		{"out of isr", []moment{healthy, followersOut}, out.WithStruck([]int32{1, 2}), ""},
		{"out of isr: every one", []moment{healthy, oneFenced}, out.WithStruck([]int32{1, 2}),
			"until partition 0 the last fault's nodes [1 2] out of isr: not within 300ms; last seen: partition 0 leader 0 epoch 0 isr [0 2]"},
		{"nothing struck holds at once", []moment{unreadable}, fenced.WithStruck(nil), ""},
		{"nothing struck: out of isr too", []moment{unreadable}, out.WithStruck(nil), ""},
		{"unresolved", []moment{healthy}, fenced, "no fault step's nodes to wait for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := waitFor(context.Background(), &timeline{events: tc.events}, "t", tc.c, 300*time.Millisecond, 20*time.Millisecond)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestRunnerRemembersStruck: each until's struck nodes are the last fault
// step's (recorded in the until op), kept across heals, waits and untils,
// and replaced by the next fault step's, even when it touched none (a
// kill of a node already down: the until holds at once).
func TestRunnerRemembersStruck(t *testing.T) {
	s, err := ParseSchedule([]byte(`
steps:
  - fault: kill
    target: {role: nodes, nodes: [1]}
  - until: {struck: fenced}
    timeout: 2s
  - fault: pause
    target: {role: nodes, nodes: [2]}
  - until: {partition: 0, struck: out-of-isr}
    timeout: 2s
  - heal: pause
  - wait: 10ms
  - until: {partition: 0, struck: out-of-isr}
    timeout: 200ms
    optional: true
  - fault: kill
    target: {role: nodes, nodes: [1]}
  - until: {struck: fenced}
    timeout: 2s
`))
	if err != nil {
		t.Fatal(err)
	}
	var runErr error
	evs := recorded(t, func(env *Env, c *fakeCluster, _ *fakeAdmin) {
		runErr = (&Runner{Env: env, HealTimeout: 2 * time.Second}).Run(context.Background(), s)
		healthy(t, env, c)
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	var got []string
	for _, e := range evs {
		if e.F != histories.FUntil || e.Type == histories.Invoke {
			continue
		}
		var v histories.NemesisValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		u, err := histories.UntilOf(v)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %v held=%t", e.Type, u.Struck, u.StruckNodes, u.Held))
	}
	want := []string{
		"ok fenced [1] held=true",
		"ok out-of-isr [2] held=true",
		"fail out-of-isr [2] held=false", // healed: 2 is back in the ISR, still the one waited for
		"ok fenced [] held=true",         // 1 was down already: the kill touched nothing
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("untils:\n got %q\nwant %q\nhistory %s", got, want, summary(evs))
	}
}
