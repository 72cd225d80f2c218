package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
	"github.com/kchaos/kchaos/nemesis/network"
)

// kafkaModel plays a scripted schedule on a three-broker, one-partition
// Kafka in miniature (RF 3, min.insync.replicas 1, unclean election on)
// and writes the history it would record: the observer's samples and the
// nemesis ops. A cut of the leader from its followers shrinks the ISR to
// the leader; killing or pausing the leader elects a follower, cleanly
// when the ISR holds one, else uncleanly, and an unclean election after
// the leader acked alone loses acked records (s2's story). It lets the
// guided strategy's loop (schedule, run, coverage, next schedule) run
// without a cluster.
func kafkaModel(t *testing.T) runner {
	return func(_ context.Context, s *scenario.Scenario, store string) (judged, error) {
		if err := os.MkdirAll(store, 0o755); err != nil {
			return judged{}, err
		}
		dir, err := os.MkdirTemp(store, "run-")
		if err != nil {
			return judged{}, err
		}
		var evs []histories.Event
		tm := int64(0)
		// A live schedule's chooser follows the events through a
		// recorder's tap, as on a cluster.
		var rec *histories.Recorder
		if s.Nemesis.Live != nil {
			rec = histories.NewRecorder(&bytes.Buffer{})
			defer rec.Close()
		}
		add := func(proc int, typ histories.Type, f string, v any) {
			b, _ := json.Marshal(v)
			evs = append(evs, histories.Event{Index: int64(len(evs)), Time: tm, Process: proc, Type: typ, F: f, Value: b})
			tm += 1e8
			if rec != nil {
				if _, err := rec.Record(proc, typ, f, v, ""); err != nil {
					t.Error(err)
				}
			}
		}
		leader, epoch, isr := int32(0), int32(0), []int32{0, 1, 2}
		cut, lost := false, false
		observe := func() {
			add(histories.ObserverProcess, histories.OK, histories.FObserve, histories.ObserveValue{Topic: s.Topic.Name, Leader: leader, LeaderEpoch: epoch, ISR: isr, HighWatermark: 1})
		}
		observe()
		play := func(st nemesis.Step) {
			if st.Until != nil {
				u := histories.Until{Condition: st.Until.String(), Partition: st.Until.Partition, ISR: st.Until.ISR, Offline: st.Until.Offline,
					Leader: st.Until.Leader, Fenced: st.Until.Fenced, Struck: st.Until.Struck, Optional: st.Optional, TimeoutMS: st.Timeout.Std().Milliseconds()}
				add(histories.NemesisProcess, histories.Invoke, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: u.Details()})
				u.Held = true
				add(histories.NemesisProcess, histories.OK, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: u.Details()})
				return
			}
			if st.Fault == "" && st.Heal == "" {
				if rec != nil {
					observe() // the observer samples while a live schedule waits
				}
				return
			}
			if st.Heal != "" {
				add(histories.NemesisProcess, histories.Invoke, histories.FHeal, histories.NemesisValue{Fault: st.Heal})
				add(histories.NemesisProcess, histories.OK, histories.FHeal, histories.NemesisValue{Fault: st.Heal})
				cut, isr = false, []int32{0, 1, 2}
				observe()
				return
			}
			spec := map[string]any{"target": st.Target}
			if p, ok := st.Params.(*network.PartitionParams); ok {
				spec["shape"] = p.Shape
			}
			var specMap map[string]any
			b, _ := json.Marshal(spec)
			_ = json.Unmarshal(b, &specMap)
			add(histories.NemesisProcess, histories.Invoke, st.Fault, histories.NemesisValue{Fault: st.Fault, Details: specMap})
			var nodes []int32
			switch role := st.Target.Role; {
			case st.Fault == histories.FPartition:
				nodes, cut, isr = []int32{0, 1, 2}, true, []int32{leader}
			case role == nemesis.RoleLeader && leader >= 0:
				nodes = []int32{leader}
				rest := slices.DeleteFunc(slices.Clone(isr), func(n int32) bool { return n == leader })
				if len(rest) == 0 {
					lost = lost || cut
					rest = []int32{(leader + 1) % 3} // unclean
				}
				leader, epoch, isr = rest[0], epoch+1, rest
			case role == nemesis.RoleFollowers && st.Target.Count > 0:
				// One follower, the first in id order: it leaves the ISR.
				nodes = slices.DeleteFunc([]int32{0, 1, 2}, func(n int32) bool { return n == leader })[:st.Target.Count]
				isr = slices.DeleteFunc(slices.Clone(isr), func(n int32) bool { return slices.Contains(nodes, n) })
			case role == nemesis.RoleFollowers:
				nodes = slices.DeleteFunc(slices.Clone(isr), func(n int32) bool { return n == leader })
				isr = []int32{leader}
			case role == nemesis.RoleOutOfISR:
				nodes = slices.DeleteFunc([]int32{0, 1, 2}, func(n int32) bool { return slices.Contains(isr, n) })
			}
			add(histories.NemesisProcess, histories.OK, st.Fault, histories.NemesisValue{Fault: st.Fault, Nodes: nodes, Details: specMap})
			observe()
		}
		if live := s.Nemesis.Live; live != nil {
			env, _, _ := nemesistest.NewEnv()
			env.Recorder, env.Topic = rec, s.Topic.Name
			var played []nemesis.Step
			for range 200 {
				batch := live.Next(context.Background(), env, slices.Clone(played))
				if len(batch) == 0 {
					break
				}
				for _, st := range batch {
					play(st)
				}
				played = append(played, batch...)
			}
		}
		for _, st := range s.Nemesis.Steps {
			play(st)
		}
		f, err := os.Create(filepath.Join(dir, checker.HistoryFile))
		if err != nil {
			return judged{}, err
		}
		enc := json.NewEncoder(f)
		for _, e := range evs {
			_ = enc.Encode(e)
		}
		f.Close()
		info := histories.RunInfo{Topic: s.Topic.Name, Replication: 3, TopicConfigs: map[string]string{"min.insync.replicas": "1"}}
		if err := histories.WriteRunInfo(filepath.Join(dir, histories.RunInfoFile), info); err != nil {
			return judged{}, err
		}
		out := judged{Dir: dir, Verdict: checker.Valid}
		if lost {
			out.Verdict, out.Classes = checker.Invalid, []string{"lost-write"}
		}
		return out, nil
	}
}

// TestGuidedExploreLoop: an exploration with --strategy guided against
// the model: every run's schedule is a scripted scenario recorded in
// schedules/, with the choices behind it in explore.json; each run's
// coverage.json is in its folder and their sum beside explore.json; the
// same seed against the same (deterministic) model redraws the same
// schedules.
func TestGuidedExploreLoop(t *testing.T) {
	base := untargetedWeak(t)
	explore := func(seed int64) (*Summary, string) {
		sum, dir, err := explore(context.Background(), Config{Scenario: base, Runs: 10, Seed: seed, Store: t.TempDir(),
			NoShrink: true, Strategy: StrategyGuided}, kafkaModel(t))
		if err != nil {
			t.Fatal(err)
		}
		return sum, dir
	}
	findings := 0
	for _, seed := range []int64{1, 2} {
		sum, dir := explore(seed)
		findings += len(sum.Findings)
		if sum.Strategy != StrategyGuided || sum.Transitions == 0 {
			t.Errorf("seed %d: strategy %q, %d transitions", seed, sum.Strategy, sum.Transitions)
		}
		total := 0
		for _, r := range sum.RunRecords {
			total += r.NewTransitions
			if len(r.Guided) == 0 || r.CoverageErr != "" {
				t.Errorf("seed %d run %d: choices %v, coverage error %q", seed, r.Index, r.Guided, r.CoverageErr)
			}
			s, err := scenario.Load(filepath.Join(dir, "schedules", "run-"+pad3(r.Index)+".yaml"), nil)
			if err != nil || s.Nemesis.Random != nil || s.Seed != r.Seed {
				t.Errorf("seed %d run %d: recorded schedule %v (random %v)", seed, r.Index, err, s != nil && s.Nemesis.Random != nil)
			}
		}
		if total != sum.Transitions {
			t.Errorf("seed %d: runs' new transitions sum to %d, the exploration covered %d", seed, total, sum.Transitions)
		}
		cov, err := states.Read(filepath.Join(dir, states.CoverageFile))
		if err != nil || cov.Distinct() != sum.Transitions || cov.Runs != 10 {
			t.Errorf("seed %d: coverage.json %v: %d distinct over %d runs", seed, err, cov.Distinct(), cov.Runs)
		}
		for _, f := range sum.Findings {
			if _, err := os.Stat(filepath.Join(dir, f.Dir, "original-run", states.CoverageFile)); err != nil {
				t.Errorf("seed %d: finding %s has no coverage.json: %v", seed, f.ID, err)
			}
			// The untils the guided schedule waited on are no steps of
			// the realised repro: it loads, with its fault steps.
			if f.Err != "" || f.Steps == 0 {
				t.Errorf("seed %d: finding %s: %d fault steps, error %q", seed, f.ID, f.Steps, f.Err)
			}
			if _, err := scenario.Load(filepath.Join(dir, f.Dir, "original.yaml"), nil); err != nil {
				t.Errorf("seed %d: finding %s: original.yaml does not load: %v", seed, f.ID, err)
			}
		}
	}
	if findings == 0 {
		t.Error("no finding in 20 runs: the repro of a guided run is not exercised")
	}
	a, _ := explore(9)
	b, _ := explore(9)
	for i := range a.RunRecords {
		if !slices.Equal(a.RunRecords[i].Guided, b.RunRecords[i].Guided) {
			t.Errorf("seed 9 run %d: %v then %v", i, a.RunRecords[i].Guided, b.RunRecords[i].Guided)
		}
	}
}

// TestGuidedFindsTheModelsLoss: the loss the model holds (cut the leader
// from its followers, let the ISR shrink to it, then kill or pause it)
// is found within 20 runs for each of 20 seeds. Choosing uniformly among
// the same aims (seven from a full ISR: the cut at the leader, kill and
// pause at the leader, every follower or one; after the cut four: kill
// and pause at the leader or the replicas out of the ISR) draws it with
// probability 1/7 x 2/4 = 1/14 an episode, about 1/7 a run of two
// episodes: within 20 runs 95% of the time, for all 20 seeds 35% of the
// time. A model, not a cluster: what it shows is that the loop learns
// (coverage in, schedule out), not how guided compares with kchaos's
// random schedules on Kafka (docs/explore.md).
func TestGuidedFindsTheModelsLoss(t *testing.T) {
	base := untargetedWeak(t)
	sum := 0
	for seed := int64(1); seed <= 20; seed++ {
		s, _, err := explore(context.Background(), Config{Scenario: base, Runs: 20, Seed: seed, Store: t.TempDir(),
			NoShrink: true, Strategy: StrategyGuided}, kafkaModel(t))
		if err != nil {
			t.Fatal(err)
		}
		first := slices.IndexFunc(s.RunRecords, func(r RunRecord) bool { return len(r.Classes) > 0 })
		if first < 0 {
			t.Errorf("seed %d: no finding in 20 runs", seed)
			first = 20
		}
		sum += first + 1
	}
	t.Logf("mean runs to the first finding: %.1f (uniform: 6.9 expected, capped at 20)", float64(sum)/20)
}

// TestGuidedFirstEpisodeLoss: a fresh exploration's first episode
// isolates the leader (a cut from its followers, or a broker fault on
// every follower) and then, once that acted, strikes the leader: Kafka's
// sequence loss, which the untried arms' order puts first; the aims the
// episodes after add (one follower, the replicas out of the ISR) are
// struck within 8 runs. For 10 seeds of the untargeted weak config and
// of the measured one, against the model (the order, not Kafka's
// answer, is what is checked).
func TestGuidedFirstEpisodeLoss(t *testing.T) {
	for name, base := range map[string]*scenario.Scenario{"untargeted weak": untargetedWeak(t), "weak-untargeted": weakUntargeted(t)} {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= 10; seed++ {
				s, _, err := explore(context.Background(), Config{Scenario: base, Runs: 8, Seed: seed, Store: t.TempDir(),
					NoShrink: true, Strategy: StrategyGuided}, kafkaModel(t))
				if err != nil {
					t.Fatal(err)
				}
				ch := s.RunRecords[0].Guided
				if len(ch) < 2 {
					t.Fatalf("seed %d: run 0's choices %v", seed, ch)
				}
				first, second := ch[0], ch[1]
				isolates := first.Moment == "first" && first.Count == 0 &&
					(first.Fault == "partition-leader-followers" || first.Role == nemesis.RoleFollowers)
				takes := second.Moment == "settled" && second.Role == nemesis.RoleLeader && second.Fault != "partition-leader-followers"
				if !isolates || !takes {
					t.Errorf("seed %d: run 0 begins %s, want the leader isolated, then struck", seed, choicesText(ch[:2]))
				}
				struck := map[string]bool{}
				for _, r := range s.RunRecords {
					for _, c := range r.Guided {
						struck[c.Role+strings.Repeat("[1]", c.Count)] = true
					}
				}
				if !struck["followers[1]"] || !struck[nemesis.RoleOutOfISR] {
					t.Errorf("seed %d: 8 runs struck %v: one follower or the replicas out of the ISR never", seed, struck)
				}
			}
		})
	}
}

func pad3(i int) string {
	b, _ := json.Marshal(1000 + i)
	return string(b)[1:]
}

// TestMergeSumsCoverage: the shards of a guided exploration merge into
// one coverage: at least each shard's, at most their sum, over every
// run, written beside merged.json.
func TestMergeSumsCoverage(t *testing.T) {
	base := untargetedWeak(t)
	var dirs []string
	most, sum := 0, 0
	for i := 1; i <= 2; i++ {
		s, dir, err := explore(context.Background(), Config{Scenario: base, Runs: 6, Seed: 3, Store: t.TempDir(), Shard: Shard{I: i, N: 2},
			NoShrink: true, Strategy: StrategyGuided}, kafkaModel(t))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
		most, sum = max(most, s.Transitions), sum+s.Transitions
	}
	m, err := Merge(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if m.Transitions < most || m.Transitions > sum {
		t.Errorf("merged %d distinct transitions, shards' %d at most and %d summed", m.Transitions, most, sum)
	}
	out := t.TempDir()
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	c, err := states.Read(filepath.Join(out, states.CoverageFile))
	if err != nil || c.Distinct() != m.Transitions || c.Runs != 6 {
		t.Errorf("merged coverage.json: %v, %d distinct, %d runs", err, c.Distinct(), c.Runs)
	}
}
