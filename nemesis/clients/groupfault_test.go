package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// fakeMembers records the member faults asked of it.
type fakeMembers struct {
	mu    sync.Mutex
	names []string
	calls []string
	fail  error
}

func (f *fakeMembers) Members() []string { return f.names }
func (f *fakeMembers) do(op, m string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, op+" "+m)
	return f.fail
}
func (f *fakeMembers) Kill(_ context.Context, m string) error  { return f.do("kill", m) }
func (f *fakeMembers) Start(_ context.Context, m string) error { return f.do("start", m) }
func (f *fakeMembers) Leave(_ context.Context, m string) error { return f.do("leave", m) }
func (f *fakeMembers) Stall(_ context.Context, m string, d time.Duration) error {
	return f.do(fmt.Sprintf("stall %s", d), m)
}

func TestMemberFaults(t *testing.T) {
	fm := &fakeMembers{names: []string{"member-0", "member-1", "member-2"}}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	e := &nemesis.Env{Cluster: newFakeCluster(), Members: fm, Seed: 1, Recorder: rec}
	ctx := context.Background()
	inject := func(st nemesis.Step) error {
		f, err := nemesis.NewFault(st)
		if err != nil {
			t.Fatal(err)
		}
		return e.Inject(ctx, f)
	}
	if err := inject(nemesis.Step{Fault: histories.FMemberKill, Params: &MemberParams{Member: "member-1"}}); err != nil {
		t.Fatal(err)
	}
	if err := inject(nemesis.Step{Fault: histories.FMemberLeave}); err != nil { // random: member-0 or member-2
		t.Fatal(err)
	}
	if err := inject(nemesis.Step{Fault: histories.FMemberStall, Params: &MemberStallParams{Member: "member-0", Stall: nemesis.Duration(15 * time.Second)}}); err != nil {
		t.Fatal(err)
	}
	if err := inject(nemesis.Step{Fault: histories.FMemberKill, Params: &MemberParams{Member: "member-7"}}); err == nil {
		t.Error("an unknown member: want an error")
	}
	// heal member starts every member a kill or leave took down, once.
	if err := e.Heal(ctx, histories.HealMember, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := e.Heal(ctx, histories.HealMember, time.Second); err != nil {
		t.Fatal(err)
	}
	starts := 0
	for _, c := range fm.calls {
		if strings.HasPrefix(c, "start ") {
			starts++
		}
	}
	if fm.calls[0] != "kill member-1" || !strings.HasPrefix(fm.calls[1], "leave member-") || fm.calls[1] == "leave member-1" ||
		fm.calls[2] != "stall 15s member-0" || starts != 2 {
		t.Errorf("calls %v: want kill member-1, leave of a running member, the stall, then two starts", fm.calls)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	kinds := completions(evs, func(e histories.Event, v histories.NemesisValue) string {
		return fmt.Sprintf("%s %s %v", e.F, e.Type, v.Details["member"])
	})
	want := []string{"member-kill ok member-1", "member-leave ok " + strings.TrimPrefix(fm.calls[1], "leave "),
		"member-stall ok member-0", "member-kill info <nil>", "heal ok <nil>", "heal ok <nil>"}
	if !slices.Equal(kinds, want) {
		t.Errorf("recorded %v, want %v", kinds, want)
	}
}

func TestMemberFaultWithoutGroup(t *testing.T) {
	e := &nemesis.Env{Cluster: newFakeCluster()}
	f, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FMemberKill})
	if err := e.Inject(context.Background(), f); err == nil || !strings.Contains(err.Error(), "workload.group") {
		t.Errorf("error %v: want one naming workload.group", err)
	}
	fm := &fakeMembers{names: []string{"member-0"}, fail: errors.New("boom")}
	e = &nemesis.Env{Cluster: newFakeCluster(), Members: fm}
	if err := e.Inject(context.Background(), f); err == nil {
		t.Error("a failing kill: want an error")
	}
}

func TestMemberFaultValidation(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"kill a member", "steps:\n - fault: member-kill\n   member: member-0", ""},
		{"stall", "steps:\n - fault: member-stall\n   for: 15s", ""},
		{"heal member", "steps:\n - heal: member", ""},
		{"stall without for", "steps:\n - fault: member-stall", "nemesis.steps[0].for: member-stall needs a duration"},
		{"member on a broker kill", "steps:\n - fault: kill\n   member: member-0\n   target: {role: leader}", "nemesis.steps[0].member: only for faults member-kill, member-leave, member-start and member-stall"},
		{"target on a member fault", "steps:\n - fault: member-leave\n   target: {role: leader}", "nemesis.steps[0].target: only for node faults"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nemesis.ParseSchedule([]byte(tc.yaml))
			wantErr(t, err, tc.want)
		})
	}
}
