package explore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
)

// exploration is a synthetic explore.json: classes[i] are run i's finding
// classes ("" none, "!" a run that failed before its check), news[i] its
// new transitions.
func exploration(scen, strat string, seed int64, classes []string, news []int) *Summary {
	s := &Summary{Scenario: scen, Strategy: strat, BaseSeed: seed, Kafka: "4.4.0", Started: time.Unix(1, 0)}
	for i, c := range classes {
		r := RunRecord{Index: i, NewTransitions: news[i]}
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
	rows := compare(append(sums, interrupted, sharded))
	type want struct {
		scen, strat     string
		runs, found     int
		first           []int
		meanFirst       float64
		transitions     []int
		meanTransitions float64
		failed          int
		classes         []string
	}
	wants := []want{
		{"strong", StrategyRandom, 2, 0, []int{0}, 3, []int{4}, 4, 0, nil},
		{"weak", StrategyGuided, 3, 2, []int{1, 3}, 2, []int{9, 6}, 7.5, 1, []string{"lost-write", "offset-reuse"}},
		{"weak", StrategyRandom, 4, 1, []int{3, 0}, 4, []int{6, 5}, 5.5, 0, []string{"lost-write"}},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(wants), rows)
	}
	for i, w := range wants {
		r := rows[i]
		if r.Scenario != w.scen || r.Strategy != w.strat || r.Runs != w.runs || r.Found != w.found || !slices.Equal(r.First, w.first) ||
			r.MeanFirst != w.meanFirst || !slices.Equal(r.Transitions, w.transitions) || r.MeanTransitions != w.meanTransitions ||
			r.Failed != w.failed || !slices.Equal(r.Classes, w.classes) {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
	md := CompareMarkdown(rows)
	for _, line := range []string{
		"| weak | random | 2 | 4 | 1 of 2 | 3 - | ≥ 4.0 | 5.5 | 0 |",
		"| weak | guided | 2 | 3 | 2 of 2 | 1 3 | 2.0 | 7.5 | 1 |",
		"- weak: guided needs 0.50× random's runs to the first finding (2.0 against 4.0), covers 1.36× its distinct transitions (7.5 against 5.5)",
	} {
		if !strings.Contains(md, line) {
			t.Errorf("markdown lacks %q:\n%s", line, md)
		}
	}
	if strings.Contains(md, "- strong:") {
		t.Errorf("a ratio for strong, which has no guided row:\n%s", md)
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
	rows, err := CompareDirs([]string{root})
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
	if _, err := CompareDirs([]string{root}); !errors.As(err, &be) || !strings.Contains(err.Error(), filepath.Join(bad, SummaryFile)) {
		t.Errorf("a folder with an explore.json that is no exploration's: %v, want bad input naming it", err)
	}
	if _, err := CompareDirs([]string{t.TempDir()}); !errors.As(err, &be) {
		t.Errorf("no exploration at all: %v, want bad input", err)
	}
}
