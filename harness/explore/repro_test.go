package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// TestRealisedRoundTrip: a recorded history's nemesis ops become a
// scripted schedule; the repro scenario holding it is written as YAML,
// loaded by scenario.Load (what `kchaos run repro.yaml` does) and gives
// back the same steps.
func TestRealisedRoundTrip(t *testing.T) {
	for _, c := range []struct {
		history, scenario string
		want              []string // the steps as written, in order
	}{
		{"real-s2/history.jsonl", "s2", []string{
			"wait: 5s",
			"fault: partition, shape: leader-followers, target: {role: leader}",
			"wait: 8.8s",
			"fault: kill, target: {role: nodes, nodes: [0]}",
			"wait: 5.9s",
			"fault: set-config, config: {unclean.leader.election.enable: \"true\"}",
			"wait: 8.2s",
			"heal: partition",
			"heal: kill",
		}},
		{"real-s1/history.jsonl", "s1", []string{
			"wait: 5s",
			"fault: partition, shape: leader-followers, target: {role: leader}",
			"wait: 8.8s",
			"fault: kill, target: {role: nodes, nodes: [0]}",
			"wait: 12.7s",
			"heal: partition",
			"heal: kill",
		}},
		{"real-s4/history.jsonl", "s4", nil},
	} {
		t.Run(c.history, func(t *testing.T) {
			steps, err := readRealised(filepath.Join("..", "..", "histories", "testdata", c.history))
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) == 0 || countFaults(steps) == 0 {
				t.Fatalf("no fault steps realised from %s: %v", c.history, steps)
			}
			if c.want != nil {
				var got []string
				for _, st := range steps {
					got = append(got, flow(t, st))
				}
				if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
					t.Errorf("realised steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
				}
			}
			base, err := scenario.Load(c.scenario, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := repro(base, steps, "a repro")
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "repro.yaml")
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := scenario.Load(file, nil)
			if err != nil {
				t.Fatalf("repro.yaml does not load: %v\n%s", err, b)
			}
			if back.Nemesis.Random != nil || len(back.Nemesis.Steps) != len(steps) {
				t.Fatalf("loaded %d steps (random %v), want %d", len(back.Nemesis.Steps), back.Nemesis.Random, len(steps))
			}
			for i := range steps {
				if g, w := flow(t, back.Nemesis.Steps[i]), flow(t, steps[i]); g != w {
					t.Errorf("step %d after the round trip: %s, want %s", i, g, w)
				}
			}
			if back.Seed != base.Seed || back.Topic.Configs["min.insync.replicas"] != base.Topic.Configs["min.insync.replicas"] {
				t.Errorf("the repro lost the scenario's seed or configs")
			}
		})
	}
}

// flow is a step as one line of flow YAML, for comparisons.
func flow(t *testing.T, st nemesis.Step) string {
	t.Helper()
	var n yaml.Node
	if err := n.Encode(st); err != nil {
		t.Fatal(err)
	}
	setFlow(&n)
	b, err := yaml.Marshal(&n)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(b)), "{"), "}")
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c)
	}
}

// TestRealisedCutsTheFinalPhase: the final heal and what follows it
// (final.abort_hanging) are the run's own, not the schedule's.
func TestRealisedCutsTheFinalPhase(t *testing.T) {
	ev := func(i int64, tm int64, typ histories.Type, f, value string) histories.Event {
		return histories.Event{Index: i, Time: tm, Process: histories.NemesisProcess, Type: typ, F: f, Value: []byte(value)}
	}
	s := int64(1e9)
	events := []histories.Event{
		ev(0, 0, histories.Invoke, "schedule", `{"fault":"schedule"}`),
		ev(1, 0, histories.OK, "schedule", `{"fault":"schedule"}`),
		ev(2, 2*s, histories.Invoke, "pause", `{"fault":"pause","details":{"target":{"role":"leader"}}}`),
		ev(3, 2*s+1e8, histories.OK, "pause", `{"fault":"pause","nodes":[2]}`),
		ev(4, 5*s+1e8, histories.Invoke, "heal", `{"fault":"pause"}`),
		ev(5, 5*s+2e8, histories.OK, "heal", `{"fault":"pause","nodes":[2]}`),
		ev(6, 9*s, histories.Invoke, "heal", `{"fault":"all"}`),
		ev(7, 9*s+1e8, histories.OK, "heal", `{"fault":"all"}`),
		ev(8, 10*s, histories.Invoke, "abort-hanging", `{"fault":"abort-hanging","details":{}}`),
		ev(9, 10*s+1e8, histories.OK, "abort-hanging", `{"fault":"abort-hanging"}`),
	}
	steps, err := realised(events)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range steps {
		got = append(got, flow(t, st))
	}
	want := "wait: 2s|fault: pause, target: {role: nodes, nodes: [2]}|wait: 3s|heal: pause"
	if strings.Join(got, "|") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// TestRealisedUntilStaysACondition: an until (a guided schedule's wait
// for a fault's effect, a story's condition) stays an until step of the
// repro, with its bound and optional as recorded, whether its condition
// held or timed out: the repro waits for the effect, not the time it took
// on the original run; the wait before the next fault is the time after
// the until ended. A struck condition stays struck (a later episode's
// strike, whose ids the plan did not know: the repro's fault names them,
// and the runner resolves them again).
func TestRealisedUntilStaysACondition(t *testing.T) {
	ev := func(i int64, tm int64, typ histories.Type, f, value string) histories.Event {
		return histories.Event{Index: i, Time: tm, Process: histories.NemesisProcess, Type: typ, F: f, Value: []byte(value)}
	}
	s := int64(1e9)
	untils := []struct{ rec, step string }{
		{`{"fault":"until","details":{"condition":"partition 0 isr [0]","partition":0,"isr":[0],"optional":true,"timeout_ms":6000}}`,
			"until: {isr: [0]}, timeout: 6s, optional: true"},
		{`{"fault":"until","details":{"condition":"partition 0 the last fault's nodes [0 1 2] out of isr","partition":0,"struck":"out-of-isr","struck_nodes":[0,1,2],"optional":true,"timeout_ms":6000}}`,
			"until: {struck: out-of-isr}, timeout: 6s, optional: true"},
	}
	for _, tc := range []struct {
		end histories.Type
		u   int
	}{{histories.OK, 0}, {histories.Fail, 0}, {histories.OK, 1}, {histories.Fail, 1}} {
		end, until := tc.end, untils[tc.u]
		events := []histories.Event{
			ev(0, 0, histories.Invoke, "schedule", `{"fault":"schedule"}`),
			ev(1, 0, histories.OK, "schedule", `{"fault":"schedule"}`),
			ev(2, 2*s, histories.Invoke, "partition", `{"fault":"partition","details":{"shape":"leader-followers","target":{"role":"leader"}}}`),
			ev(3, 2*s+2e8, histories.OK, "partition", `{"fault":"partition","nodes":[0,1,2]}`),
			ev(4, 2*s+2e8, histories.Invoke, "until", until.rec),
			ev(5, 6*s+5e8, end, "until", until.rec),
			ev(6, 8*s+5e8, histories.Invoke, "kill", `{"fault":"kill","details":{"target":{"role":"leader"}}}`),
			ev(7, 9*s, histories.OK, "kill", `{"fault":"kill","nodes":[0]}`),
		}
		steps, err := realised(events)
		if err != nil {
			t.Fatalf("until %s %s: %v", end, until.rec, err)
		}
		var got []string
		for _, st := range steps {
			got = append(got, flow(t, st))
		}
		want := "wait: 2s|fault: partition, shape: leader-followers, target: {role: leader}|" + until.step + "|wait: 2s|fault: kill, target: {role: nodes, nodes: [0]}"
		if strings.Join(got, "|") != want {
			t.Errorf("until %s %s: got %s\nwant %s", end, until.rec, strings.Join(got, "|"), want)
		}
		if err := (&nemesis.Schedule{Steps: steps}).Validate(); err != nil {
			t.Errorf("until %s %s: the realised schedule does not validate: %v", end, until.rec, err)
		}
	}
}

// TestRealisedRefusesUnknownParameters: a recorded parameter the step
// format lacks is an error, never silently dropped; so is a hand-made
// history whose partition spec is no shape (histories/testdata's small
// ones are written for the checker, not the nemesis).
func TestRealisedRefusesUnknownParameters(t *testing.T) {
	if _, err := readRealised(filepath.Join("..", "..", "histories", "testdata", "unclean-election.jsonl")); err == nil ||
		!strings.Contains(err.Error(), "shape") {
		t.Errorf("hand-made partition spec: err = %v, want one naming the shape", err)
	}
	events := []histories.Event{
		{Index: 0, Process: histories.NemesisProcess, Type: histories.Invoke, F: "kill", Value: []byte(`{"fault":"kill","details":{"target":{"role":"leader"},"speed":"fast"}}`)},
		{Index: 1, Process: histories.NemesisProcess, Type: histories.OK, F: "kill", Value: []byte(`{"fault":"kill","nodes":[0]}`)},
	}
	if _, err := realised(events); err == nil || !strings.Contains(err.Error(), "speed") {
		t.Fatalf("err = %v, want one naming speed", err)
	}
}
