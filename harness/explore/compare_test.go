package explore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
)

// exploration is a synthetic explore.json: classes[i] are run i's finding
// classes ("" none, "!" a run that failed before its check), news[i] its
// new transitions; a guided run takes 15 s, any other 10 s.
func exploration(scen, strat string, seed int64, classes []string, news []int) *Summary {
	s := &Summary{Scenario: scen, Strategy: strat, BaseSeed: seed, Kafka: "4.4.0", Started: time.Unix(1, 0), Unsampled: new(0)}
	secs := 10.0
	if strat == StrategyGuided {
		secs = 15
	}
	for i, c := range classes {
		r := RunRecord{Index: i, NewTransitions: news[i], Seconds: secs}
		switch c {
		case "":
		case "!":
			r.Err = "cluster did not start"
		default:
			r.Classes = []string{c}
		}
		s.RunRecords = append(s.RunRecords, r)
		s.Transitions += news[i]
	}
	return s
}

func TestCompare(t *testing.T) {
	sums := []*Summary{
		exploration("weak", StrategyRandom, 2, []string{"", "", "", ""}, []int{3, 1, 0, 1}),
		exploration("weak", StrategyRandom, 1, []string{"", "", "lost-write", ""}, []int{3, 2, 1, 0}),
		exploration("weak", StrategyGuided, 1, []string{"lost-write", "", "", ""}, []int{4, 3, 2, 1}),
		// More runs than the row's fewest: judged on its first three.
		exploration("weak", StrategyGuided, 2, []string{"!", "", "offset-reuse"}, []int{0, 5, 1}),
		// "" strategy is random (explorations recorded before strategies).
		exploration("strong", "", 7, []string{"", ""}, []int{2, 2}),
	}
	interrupted := exploration("weak", StrategyRandom, 9, []string{"lost-write"}, []int{1})
	interrupted.Interrupted = true
	sharded := exploration("weak", StrategyRandom, 8, []string{"lost-write"}, []int{1})
	sharded.Shard = "1/2"
	// Still running (2 of its 4 runs): left out, where counted it would
	// judge its row on 2 runs (TestUnfinished: which short ones count).
	running := exploration("weak", StrategyRandom, 7, []string{"", ""}, []int{1, 1})
	running.Runs = 4
	rows := compare(append(sums, interrupted, sharded, running), 0)
	type want struct {
		scen, strat     string
		runs, found     int
		first           []int
		meanFirst       float64
		transitions     []int
		meanTransitions float64
		failed          int
		classes         []string
		toFirst         []float64
		perMinute       float64
	}
	wants := []want{
		// A miss counts its runs' time: 2 runs of 10 s; 4 transitions in 20 s.
		{"strong", StrategyRandom, 2, 0, []int{0}, 3, []int{4}, 4, 0, nil, []float64{20}, 12},
		// Seed 1 found in run 1 (15 s), seed 2 in run 3 (45 s); 9 and 6
		// transitions in 45 s each: 12 and 8 a minute.
		{"weak", StrategyGuided, 3, 2, []int{1, 3}, 2, []int{9, 6}, 7.5, 1, []string{"lost-write", "offset-reuse"}, []float64{15, 45}, 10},
		// Seed 1 found in run 3 (30 s), seed 2 missed (40 s); 6 and 5
		// transitions in 40 s: 9 and 7.5 a minute.
		{"weak", StrategyRandom, 4, 1, []int{3, 0}, 4, []int{6, 5}, 5.5, 0, []string{"lost-write"}, []float64{30, 40}, 8.25},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(wants), rows)
	}
	for i, w := range wants {
		r := rows[i]
		if r.Scenario != w.scen || r.Strategy != w.strat || r.Runs != w.runs || r.Found != w.found || !slices.Equal(r.First, w.first) ||
			r.MeanFirst != w.meanFirst || !slices.Equal(r.Transitions, w.transitions) || r.MeanTransitions != w.meanTransitions ||
			r.Failed != w.failed || !slices.Equal(r.Classes, w.classes) || !slices.Equal(r.SecondsToFirst, w.toFirst) ||
			r.TransitionsPerMinute != w.perMinute {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
	md := CompareMarkdown(rows)
	for _, line := range []string{
		// Random's median seed missed (3 and a miss: the upper middle);
		// one run of its eight found something.
		"| weak | random | 2 | 4 | 1 of 2 | 3 - | ≥ 4.0 | > 4 | 1 of 8 | 5.5 | 0 | 10 | ≥ 35 | 8.2 |",
		// Guided's failed run is no judged run: 2 of the other 5.
		"| weak | guided | 2 | 3 | 2 of 2 | 1 3 | 2.0 | 3 | 2 of 5 | 7.5 | 1 | 15 | 30 | 10.0 |",
		// Random's mean is a lower bound (a miss), so the ratios are upper
		// bounds; 1 of 8 runs bounds random's per-run rate at 47.1%
		// (Clopper-Pearson, checked by hand), whose median is run 2.
		"- weak: guided needs at most 0.50× random's runs to the first finding (2.0 against at least 4.0); " +
			"random found something in 1 of 8 runs, independent draws: a per-run rate of at most 47.1% (95%), so a median first finding at run 2 or later, " +
			"against run 3 for guided's median seed (at most 1.50×, random's bound at 95%); it covers 1.36× random's distinct transitions (7.5 against 5.5); " +
			"in time, it needs at most 0.86× random's seconds to the first finding (30 against at least 35), and covers 1.21× random's distinct transitions a minute (10.0 against 8.2)",
	} {
		if !strings.Contains(md, line) {
			t.Errorf("markdown lacks %q:\n%s", line, md)
		}
	}
	if strings.Contains(md, "- strong:") {
		t.Errorf("a ratio for strong, which has no guided row:\n%s", md)
	}
	// At a shorter horizon: each judged on its first two runs (random's
	// seed 1 found in run 3: a miss now; 3+2 and 3+2 transitions).
	short := compare(sums, 2)
	if r := short[2]; r.Runs != 2 || r.Found != 0 || r.MeanFirst != 3 || !slices.Equal(r.Transitions, []int{5, 4}) || r.RunsFound != 0 || r.RunsJudged != 4 || r.MedianFirst != 0 {
		t.Errorf("weak random at 2 runs: %+v", r)
	}
	// A bound above what a row made changes nothing.
	if long := compare(sums, 9); long[1].Runs != 3 || long[2].Runs != 4 {
		t.Errorf("at 9 runs: rows judged on %d and %d runs, want 3 and 4", long[1].Runs, long[2].Runs)
	}
}

func TestCompareDirs(t *testing.T) {
	root := t.TempDir()
	for i, s := range []*Summary{
		exploration("weak", StrategyRandom, 1, []string{"", "lost-write"}, []int{2, 1}),
		exploration("weak", StrategyGuided, 1, []string{"lost-write", ""}, []int{3, 1}),
	} {
		dir := filepath.Join(root, s.Strategy, "seed-1", "explore-weak", string(rune('a'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := CompareDirs([]string{root}, 0)
	if err != nil || len(rows) != 2 || rows[0].Strategy != StrategyGuided || rows[0].First[0] != 1 || rows[1].First[0] != 2 {
		t.Fatalf("CompareDirs: %+v, %v", rows, err)
	}
	bad := filepath.Join(root, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, SummaryFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var be *scenario.BadInputError
	if _, err := CompareDirs([]string{root}, 0); !errors.As(err, &be) || !strings.Contains(err.Error(), filepath.Join(bad, SummaryFile)) {
		t.Errorf("a folder with an explore.json that is no exploration's: %v, want bad input naming it", err)
	}
	if _, err := CompareDirs([]string{t.TempDir()}, 0); !errors.As(err, &be) {
		t.Errorf("no exploration at all: %v, want bad input", err)
	}
	if _, err := CompareDirs([]string{root}, -1); !errors.As(err, &be) || !strings.Contains(err.Error(), "--runs -1") {
		t.Errorf("a negative --runs: %v, want bad input naming it", err)
	}
}

// TestUnfinished: an exploration with fewer runs than its bound is left
// out of a comparison unless something ended it early.
func TestUnfinished(t *testing.T) {
	for _, c := range []struct {
		name  string
		runs  int
		made  []string
		after int
		stop  string
		want  bool
	}{
		{"all its runs", 2, []string{"", ""}, 0, "", false},
		{"still running", 4, []string{"", ""}, 0, "", true},
		{"ended at its --stop-after finding", 4, []string{"", "lost-write"}, 1, "", false},
		{"--stop-after not reached yet", 4, []string{"", "lost-write"}, 2, "", true},
		{"stopped: runs in a row failed", 4, []string{"!", "!"}, 0, "stopped: 2 runs in a row failed", false},
		{"bounded by time, not runs", 0, []string{""}, 0, "", false},
	} {
		s := exploration("weak", StrategyRandom, 1, c.made, make([]int, len(c.made)))
		s.Runs, s.StopAfter, s.Stopped = c.runs, c.after, c.stop
		for _, r := range s.RunRecords {
			if len(r.Classes) > 0 {
				s.Findings = append(s.Findings, FindingRecord{})
			}
		}
		if got := unfinished(s); got != c.want {
			t.Errorf("%s: unfinished %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRecount: an exploration recorded before coverage left out the
// transitions from before a first sample is counted again from its
// coverage.json at its whole horizon; where that cannot be (a shorter
// horizon, no coverage.json) the table says its figure is as recorded.
func TestRecount(t *testing.T) {
	unknown := "isr=unknown leader=unknown elr=unknown election=unknown truncation=unknown quorum=same coordinator=unknown"
	healthy := "isr=full leader=alive elr=empty election=none truncation=none quorum=same coordinator=unknown"
	shrunk := "isr=at-min leader=alive elr=empty election=none truncation=none quorum=same coordinator=unknown"
	cov := &states.Coverage{Runs: 2, Transitions: []states.Covered{
		{Before: unknown, Fault: "pause", Role: states.Unknown, After: shrunk, Count: 1},
		{Before: unknown, Fault: "kill", Role: states.Unknown, After: shrunk, Count: 1},
		{Before: healthy, Fault: "pause", Role: states.RoleFollowers, After: shrunk, Count: 2},
		{Before: shrunk, Fault: "heal-pause", Role: states.RoleOutOfISR, After: healthy, Count: 2},
	}}
	root := t.TempDir()
	write := func(name string, s *Summary, withCoverage bool) {
		t.Helper()
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(dir); err != nil {
			t.Fatal(err)
		}
		if withCoverage {
			if err := cov.Write(filepath.Join(dir, states.CoverageFile)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Recorded before the rule: 4 distinct (3 in run 0, 1 in run 1),
	// two of them from before a first sample.
	old := exploration("weak", StrategyRandom, 1, []string{"", ""}, []int{3, 1})
	old.Unsampled = nil
	write("old", old, true)
	// Recorded under it: the same runs, counted as today (2 distinct).
	now := exploration("weak", StrategyGuided, 1, []string{"", ""}, []int{1, 1})
	now.Unsampled = new(2)
	write("now", now, true)
	for _, c := range []struct {
		name       string
		runs       int
		random     []int
		asRecorded int
	}{
		{"whole horizon: counted again", 0, []int{2}, 0},
		{"first run only: as recorded", 1, []int{3}, 1},
	} {
		rows, err := CompareDirs([]string{root}, c.runs)
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s: %+v, %v", c.name, rows, err)
		}
		g, r := rows[0], rows[1]
		if !slices.Equal(r.Transitions, c.random) || r.AsRecorded != c.asRecorded || g.AsRecorded != 0 {
			t.Errorf("%s: random %v (%d as recorded), guided %d as recorded; want %v (%d)", c.name, r.Transitions, r.AsRecorded, g.AsRecorded, c.random, c.asRecorded)
		}
		note := "- weak, random: 1 of its 1 explorations predate the rule"
		md := CompareMarkdown(rows)
		if strings.Contains(md, note) != (c.asRecorded > 0) {
			t.Errorf("%s: the note %q said %v, want %v:\n%s", c.name, note, !(c.asRecorded > 0), c.asRecorded > 0, md)
		}
		// The faults' own transitions: the sampled pause alone (not the
		// heal, not the strikes before a first sample), and only at the
		// whole horizon, where coverage.json holds them.
		whole := c.runs == 0
		if got := slices.Equal(r.FaultTransitions, []int{1}) && slices.Equal(g.FaultTransitions, []int{1}); got != whole {
			t.Errorf("%s: fault transitions %v and %v, want [1] each: %v", c.name, g.FaultTransitions, r.FaultTransitions, whole)
		}
		if clause := "of those, the faults' own (the heals apart, which every strike owes whoever chose it): 1.00× (1.0 against 1.0)"; strings.Contains(md, clause) != whole {
			t.Errorf("%s: the faults' clause said %v, want %v:\n%s", c.name, !whole, whole, md)
		}
	}
	// Without a coverage.json nothing can be counted again.
	if err := os.Remove(filepath.Join(root, "old", states.CoverageFile)); err != nil {
		t.Fatal(err)
	}
	rows, err := CompareDirs([]string{root}, 0)
	if err != nil || rows[1].Transitions[0] != 4 || rows[1].AsRecorded != 1 || rows[1].FaultTransitions != nil {
		t.Errorf("no coverage.json: %+v, %v; want 4 as recorded and no fault transitions", rows, err)
	}
	// A coverage.json that is not one is bad input naming it.
	if err := os.WriteFile(filepath.Join(root, "now", states.CoverageFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var be *scenario.BadInputError
	if _, err := CompareDirs([]string{root}, 0); !errors.As(err, &be) || !strings.Contains(err.Error(), filepath.Join(root, "now", states.CoverageFile)) {
		t.Errorf("a broken coverage.json: %v, want bad input naming it", err)
	}
}

// TestRateOfJudgedRuns: a random run that failed before its check is no
// draw that found nothing: the per-run rate is bounded over the judged
// runs only (0 of 7 here, not 0 of 8).
func TestRateOfJudgedRuns(t *testing.T) {
	rows := compare([]*Summary{
		exploration("weak", StrategyRandom, 1, []string{"!", "", "", ""}, []int{0, 2, 1, 1}),
		exploration("weak", StrategyRandom, 2, []string{"", "", "", ""}, []int{2, 1, 1, 0}),
		exploration("weak", StrategyGuided, 1, []string{"lost-write", "", "", ""}, []int{3, 1, 1, 1}),
	}, 0)
	if r := rows[1]; r.RunsJudged != 7 || r.Failed != 1 || r.RunsFound != 0 {
		t.Fatalf("random row: %d judged, %d failed, %d with a finding; want 7, 1, 0", r.RunsJudged, r.Failed, r.RunsFound)
	}
	// 0 of 7: 1-0.05^(1/7) = 34.8%.
	if md := CompareMarkdown(rows); !strings.Contains(md, "random found something in 0 of 7 runs, independent draws: a per-run rate of at most 34.8% (95%)") {
		t.Errorf("rate over the judged runs:\n%s", md)
	}
}

// TestCompareSameConfig: explorations of one scenario name on different
// configs are bad input naming both folders; a mix given in another
// order is the same mix, and a left-out exploration is not held to it.
func TestCompareSameConfig(t *testing.T) {
	base := func(strat string) *Summary {
		s := exploration("weak", strat, 1, []string{"", ""}, []int{1, 1})
		s.Settings, s.Faults = map[string]string{"acks": "all", "unclean": "true"}, []string{"kill", "pause"}
		return s
	}
	for _, c := range []struct {
		name   string
		change func(*Summary)
		want   string
	}{
		{"the same config", func(*Summary) {}, ""},
		{"the mix in another order", func(s *Summary) { s.Faults = []string{"pause", "kill"} }, ""},
		{"another release", func(s *Summary) { s.Kafka = "4.3.2" }, "Kafka 4.4.0 against 4.3.2"},
		{"another setting", func(s *Summary) { s.Settings["acks"] = "1" }, "settings acks=all, unclean=true against acks=1, unclean=true"},
		{"another mix", func(s *Summary) { s.Faults = []string{"kill"} }, "mix kill, pause against kill"},
		{"another release, interrupted", func(s *Summary) { s.Kafka, s.Interrupted = "4.3.2", true }, ""},
	} {
		root := t.TempDir()
		other := base(StrategyGuided)
		c.change(other)
		for name, s := range map[string]*Summary{"a": base(StrategyRandom), "b": other} {
			dir := filepath.Join(root, name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := s.Write(dir); err != nil {
				t.Fatal(err)
			}
		}
		_, err := CompareDirs([]string{root}, 0)
		var be *scenario.BadInputError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want a table", c.name, err)
		case c.want != "" && (!errors.As(err, &be) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), filepath.Join(root, "a")) || !strings.Contains(err.Error(), filepath.Join(root, "b"))):
			t.Errorf("%s: %v, want bad input naming both folders and %q", c.name, err, c.want)
		}
	}
}

// TestSettingsTextLeavesOutEmpty: a setting without a value (no group, so
// no group protocol) is not written as "group.protocol=".
func TestSettingsTextLeavesOutEmpty(t *testing.T) {
	got := settingsText(map[string]string{"acks": "all", "group.protocol": "", "commit_epoch": "", "unclean": "false"})
	if want := "acks=all, unclean=false"; got != want {
		t.Errorf("settingsText = %q, want %q", got, want)
	}
	if got := settingsText(map[string]string{"group.protocol": ""}); got != "-" {
		t.Errorf("only empty settings: %q, want -", got)
	}
}
