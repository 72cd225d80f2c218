//go:build integration

package nemesis_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
)

// s11 is seed scenario S11 as a schedule: the leader's followers fall out
// of the ISR (leader cut off from them), a follower is frozen, the leader is
// killed so that the partition goes offline, an operator elects a leader
// by hand (ElectLeaders UNCLEAN) and switches unclean elections on. The
// last wait is cut short by cancelling the context, as Ctrl-C would.
const s11 = `
steps:
  - fault: partition
    shape: leader-followers
    target: {role: leader, partition: 0}
  - until: {partition: 0, isr: [0]}
    timeout: 30s
  - fault: pause
    target: {role: nodes, nodes: [1]}
  - fault: kill
    target: {role: leader, partition: 0}
  - until: {partition: 0, offline: true, fenced: [0, 1]}
    timeout: 30s
  - fault: elect-unclean
    target: {partition: 0}
  - until: {partition: 0, leader: 2}
    timeout: 30s
  - fault: set-config
    config: {unclean.leader.election.enable: "true"}
  - wait: 10m
`

// TestRunnerScriptedCancelled runs S11 on a real cluster and cancels it
// during the last wait. The final heal must then work around a dead
// broker (0, whose kchaos rules die with its network namespace) and a
// paused one (1): resume, remove rules, start, and wait until every broker
// is live and the partition has a leader; no kchaos rule may remain.
func TestRunnerScriptedCancelled(t *testing.T) {
	h := nt.Start(t, nil)
	h.Replicated("s11", 100)
	s, err := nemesis.ParseSchedule([]byte(s11))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wctx, stopWriting := context.WithCancel(context.Background())
	defer stopWriting()
	h.WriteInBackground(wctx)
	// Cancel once set-config is recorded: the schedule is then in its wait.
	go func() {
		for ctx.Err() == nil {
			if h.Env.Recorder.Flush() == nil && hasOK(h.History, histories.FSetConfig) {
				time.Sleep(time.Second)
				cancel()
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	begin := time.Now()
	err = (&nemesis.Runner{Env: h.Env}).Run(ctx, s)
	t.Logf("schedule and final heal took %s; run error: %v", nt.Since(begin), err)
	nt.Must(t, errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "final heal"),
		"run error %v, want context.Canceled only", err)
	h.NoRules()
	live, _ := h.Adm.LiveBrokers(context.Background())
	p, _ := h.Adm.Describe(context.Background(), "s11")
	nt.Must(t, nt.Equal(live, []int32{0, 1, 2}) && p[0].Leader >= 0, "after the final heal: live %v, partition %+v", live, p[0])
	t.Logf("after the final heal: live %v, partition %+v", live, p[0])

	var fs []string
	ops := h.NemesisOps()
	for _, e := range ops {
		if e.Type != histories.Invoke {
			fs = append(fs, e.F+":"+string(e.Type))
		}
	}
	want := "schedule:ok partition:ok until:ok pause:ok kill:ok until:ok elect-unclean:ok until:ok set-config:ok heal:ok"
	nt.Must(t, strings.Join(fs, " ") == want, "history %v, want %s", fs, want)
	ev, v, _ := nt.Completion(ops, histories.FElectUnclean)
	nt.Must(t, nt.Equal(v.Nodes, []int32{2}), "unclean election: %s", ev.Value)
	heal, _, _ := nt.Completion(ops, histories.FHeal)
	t.Logf("final heal recorded: %s", heal.Value)
	for _, s := range []string{`"resumed":[1]`, `"started":[0]`} {
		nt.Must(t, bytes.Contains(heal.Value, []byte(s)), "final heal lacks %s: %s", s, heal.Value)
	}
}

func hasOK(path, f string) bool {
	evs, _, err := histories.ReadFile(path)
	if err != nil {
		return false
	}
	for _, e := range evs {
		if e.Process == histories.NemesisProcess && e.F == f && e.Type == histories.OK {
			return true
		}
	}
	return false
}

// TestRunnerRandomOnCluster plays a short seeded random schedule on a real cluster
// while a writer runs: every planned fault and heal is recorded, in the
// plan's order, none fails, and the cluster ends healthy.
func TestRunnerRandomOnCluster(t *testing.T) {
	h := nt.Start(t, nil)
	h.Topic("rnd", []int32{0, 1, 2}, nil)
	wctx, stopWriting := context.WithCancel(context.Background())
	defer stopWriting()
	h.WriteInBackground(wctx)
	rs := nemesis.RandomSchedule{Seed: 3, Interval: nemesis.Duration(8 * time.Second),
		Duration: nemesis.Duration(40 * time.Second),
		Faults:   []string{histories.FPause, histories.FKill, "partition-racks", histories.FRestart, histories.FLoseUnflushed}}
	plan, err := nemesis.Plan(rs, []int32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, st := range plan {
		if st.Fault != "" || st.Heal != "" {
			want = append(want, st.Fault+st.Heal)
		}
	}
	begin := time.Now()
	err = (&nemesis.Runner{Env: h.Env}).Run(context.Background(), nemesis.Schedule{Random: &rs})
	t.Logf("random schedule (seed 3, %d steps) and final heal took %s", len(plan), nt.Since(begin))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range h.NemesisOps() {
		if e.Type == histories.Invoke || histories.IsBookkeeping(e.F) {
			continue
		}
		nt.Must(t, e.Type == histories.OK, "%s ended %s: %s %s", e.F, e.Type, e.Value, e.Error)
		var v histories.NemesisValue
		_ = e.Decode(&v)
		switch {
		case e.F == histories.FHeal && v.Fault != "all":
			got = append(got, v.Fault)
		case e.F != histories.FHeal:
			got = append(got, e.F)
		}
		t.Logf("%s %s nodes %v", e.F, v.Fault, v.Nodes)
	}
	nt.Must(t, strings.Join(got, " ") == strings.Join(want, " "), "ops %v, want the plan's %v", got, want)
	h.NoRules()
	live, _ := h.Adm.LiveBrokers(context.Background())
	nt.Must(t, nt.Equal(live, []int32{0, 1, 2}), "live after the final heal: %v", live)
}
