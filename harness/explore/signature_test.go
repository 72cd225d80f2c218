package explore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

// TestCoarseRole: the finer roles, which depend on how far the ISR had
// shrunk, become "others"; the leader, controllers and links stay.
func TestCoarseRole(t *testing.T) {
	for in, want := range map[string]string{
		"leader": "leader", "leader+others": "leader+others", "followers": "others", "out-of-isr": "others",
		"isr": "others", "elr": "others", "followers+out-of-isr": "others", "controller": "controller",
		"none": "none", "all": "all", "links": "links", "links-of-leader": "links-of-leader",
		"links-of-followers": "links-of-others", "unknown": "unknown",
	} {
		if got := coarseRole(in); got != want {
			t.Errorf("CoarseRole(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKnownCellsS13R1: the findings suite's s13 and r1 cells as a
// campaign matches against them (their outcome's anomalies, their
// written fault steps), and the matching rule on signatures shaped like
// them: same class and the exact fault set match; another class, a
// fault more or less, do not (s13 without its kill is s8's shape).
func TestKnownCellsS13R1(t *testing.T) {
	known, err := knownCells()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]KnownCell{}
	for _, k := range known {
		byID[k.ID] = k
	}
	s13, r1 := byID["s13"], byID["r1"]
	if !slices.Equal(s13.Classes, []string{"lost-write"}) ||
		!slices.Equal(s13.Faults, []string{"kill@others", "lose-unflushed@leader", "partition-leader-followers@links-of-leader"}) {
		t.Errorf("s13 cell: %+v", s13)
	}
	if !slices.Equal(r1.Classes, []string{"log-start-jump", "lost-write"}) || !slices.Equal(r1.Jira, []string{"KAFKA-20732"}) ||
		!slices.Equal(r1.Faults, []string{"restart@leader", "restart@others", "stop-producers@none"}) {
		t.Errorf("r1 cell: %+v", r1)
	}
	// k20845 runs since 2026-12-06: known by its anomalies (its metric,
	// group_read_backs_unanswered, is no class) and its written faults.
	if k := byID["k20845"]; !slices.Equal(k.Classes, []string{"commit-backwards", "commit-lost", "lost-by-commit"}) ||
		!slices.Equal(k.Faults, []string{"kill@others", "member-kill@none", "member-start@none"}) {
		t.Errorf("k20845 cell: %+v", k)
	}
	// k20330's outcome is a metric, no anomaly: its bug (acks left
	// unanswered) is no class a campaign finds, so it matches nothing.
	if k, ok := byID["k20330"]; !ok || len(k.Classes) != 0 {
		t.Errorf("k20330 cell: %+v (ok %v), want known with no class", k, ok)
	}
	for _, c := range []struct {
		name      string
		sig       Signature
		label     string
		knownCell string
	}{
		{"s13's shape", Signature{Class: "lost-write", Faults: s13.Faults}, "s13 (no JIRA)", "s13"},
		{"s13's shape, transition ignored", Signature{Class: "lost-write", Faults: s13.Faults, Transition: "a | kill@leader | b"}, "s13 (no JIRA)", "s13"},
		{"r1's shape, log-start-jump", Signature{Class: "log-start-jump", Faults: r1.Faults}, "KAFKA-20732", "r1"},
		{"r1's shape, lost-write", Signature{Class: "lost-write", Faults: r1.Faults}, "KAFKA-20732", "r1"},
		{"r1's faults, another class", Signature{Class: "offset-reuse", Faults: r1.Faults}, "new", ""},
		{"r1 without the producers stopped", Signature{Class: "log-start-jump", Faults: []string{"restart@leader", "restart@others"}}, "new", ""},
		{"s13 without its kill: s8's shape", Signature{Class: "lost-write",
			Faults: []string{"lose-unflushed@leader", "partition-leader-followers@links-of-leader"}}, "s8/elr=on (no JIRA)", "s8/elr=on"},
		{"s13 plus a pause", Signature{Class: "lost-write", Faults: append(slices.Clone(s13.Faults), "pause@leader")}, "new", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			label, cell := label(c.sig, known)
			if label != c.label || cell != c.knownCell {
				t.Errorf("Label = %q, %q; want %q, %q", label, cell, c.label, c.knownCell)
			}
		})
	}
}

// TestRunSignatureRecordedS2: s2's recorded run (histories/testdata/
// real-s2) signs as its story: the cut of the leader's links, the
// leader killed, the config set; the last fault's transition is the
// unclean election. s2's written steps spell the same faults
// (ScenarioFaults), so a scenario and a run of it agree.
func TestRunSignatureRecordedS2(t *testing.T) {
	dir := filepath.Join("..", "..", "histories", "testdata", "real-s2")
	sig, err := runSignature(dir, "lost-write", "repro-run")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"kill@leader", "partition-leader-followers@links-of-leader", "set-config@none"}
	if !slices.Equal(sig.Faults, want) {
		t.Errorf("faults %v, want %v", sig.Faults, want)
	}
	if !strings.Contains(sig.Transition, "| set-config@none |") || !strings.Contains(sig.Transition, "election=unclean") {
		t.Errorf("transition %q: want set-config's, ending in an unclean election", sig.Transition)
	}
	if got := scenarioFaults(load(t, "s2")); !slices.Equal(got, want) {
		t.Errorf("s2's written faults %v, want the recorded run's %v", got, want)
	}
	if sig.key() != sig.shape()+" :: "+sig.Transition || !strings.HasPrefix(sig.key(), "lost-write :: kill@leader, ") {
		t.Errorf("key %q", sig.key())
	}
}

// TestFindingSignatureSources: a finding folder signs from its repro's
// run when kept, from the original run when not shrunk, else from
// repro.yaml's written steps.
func TestFindingSignatureSources(t *testing.T) {
	hist, err := os.ReadFile(filepath.Join("..", "..", "histories", "testdata", "real-s2", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.ReadFile(filepath.Join("..", "..", "histories", "testdata", "real-s2", histories.RunInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	s13, err := os.ReadFile(filepath.Join("..", "scenario", "builtin", "s13.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, path string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, source string
		files        map[string][]byte
		faults       int
	}{
		{"repro-run", "repro-run", map[string][]byte{"repro-run/" + checker.HistoryFile: hist, "repro-run/run.json": info, "repro.yaml": s13}, 3},
		{"not shrunk", "original-run", map[string][]byte{"original-run/" + checker.HistoryFile: hist}, 3},
		{"shrunk, no rerun kept", "repro.yaml", map[string][]byte{"original-run/" + checker.HistoryFile: hist, "repro.yaml": s13}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, findingFile), []byte(`{"id":"001-lost-write","class":"lost-write","reproduced":"2/3"}`))
			for p, b := range c.files {
				write(t, filepath.Join(dir, p), b)
			}
			sig, f, err := findingSignature(dir)
			if err != nil {
				t.Fatal(err)
			}
			if sig.Source != c.source || len(sig.Faults) != c.faults || sig.Class != "lost-write" || f.Rate != "2/3" {
				t.Errorf("signature %+v from %s, finding %+v", sig, sig.Source, f)
			}
			if c.source == "repro.yaml" && sig.Transition != "" {
				t.Errorf("a signature from a scenario has a transition: %q", sig.Transition)
			}
		})
	}
	if _, _, err := findingSignature(t.TempDir()); err == nil {
		t.Error("a folder without finding.json signed")
	}
}

// TestWrittenRole: a fault the states could not place (struck before the
// observer's first sample) signs by its written target: a role aimed at
// partition 0, a link fault's as links-of-<role>; explicit nodes, another
// time or no target stay unknown.
func TestWrittenRole(t *testing.T) {
	ev := func(time int64, value string) histories.Event {
		return histories.Event{Time: time, Process: histories.NemesisProcess, Type: histories.Invoke, F: "x", Value: []byte(value)}
	}
	events := []histories.Event{
		ev(1, `{"details": {"shape": "leader-followers", "target": {"role": "leader", "partition": 0}}}`),
		ev(2, `{"details": {"target": {"role": "leader", "partition": 0}}}`),
		ev(3, `{"details": {"target": {"role": "followers"}}}`),
		ev(4, `{"details": {"target": {"role": "nodes", "nodes": [0]}}}`),
		ev(5, `{}`),
		ev(6, `{"details": {"target": {"role": "leader", "partition": 1}}}`),
	}
	for time, want := range map[int64]string{1: "links-of-leader", 2: "leader", 3: "others", 4: "unknown", 5: "unknown", 6: "others", 9: "unknown"} {
		if got := writtenRole(events, time); got != want {
			t.Errorf("writtenRole at %d = %q, want %q", time, got, want)
		}
	}
}
