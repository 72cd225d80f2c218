package explore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// TestMerge: three shards of one exploration, one of them missing from
// the merge: the runs of the two given are joined by index, their
// findings' folders point into their shard folders, and shard 3 is named
// missing. Mixing explorations or repeating a shard is bad input.
func TestMerge(t *testing.T) {
	e := explorable(t, "s2")
	r := &simRunner{t: t}
	var dirs []string
	for i := 1; i <= 3; i++ {
		_, dir, err := explore(context.Background(), Config{Scenario: e, Runs: 9, Seed: 7, Store: t.TempDir(), Shard: Shard{I: i, N: 3}, NoShrink: true}, r.run)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	m, err := Merge(dirs[:2])
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, rec := range m.RunRecords {
		idx = append(idx, rec.Index)
	}
	if !slices.Equal(idx, []int{0, 1, 3, 4, 6, 7}) || !slices.Equal(m.Missing, []int{3}) || !slices.Equal(m.Present, []int{1, 2}) {
		t.Errorf("runs %v, present %v, missing %v", idx, m.Present, m.Missing)
	}
	for _, f := range m.Findings {
		if _, err := os.Stat(filepath.Join(f.Dir, "finding.md")); err != nil {
			t.Errorf("finding %s: %v", f.ID, err)
		}
	}
	if md := m.Markdown(); !strings.Contains(md, "Missing shards: [3]") {
		t.Errorf("page does not name the missing shard:\n%s", md)
	}
	if m, err := Merge(dirs); err != nil || len(m.Missing) != 0 || len(m.RunRecords) != 9 {
		t.Errorf("all three: %v, missing %v, %d runs", err, m.Missing, len(m.RunRecords))
	}

	_, other, err := explore(context.Background(), Config{Scenario: e, Runs: 3, Seed: 8, Store: t.TempDir(), Shard: Shard{I: 3, N: 3}, NoShrink: true}, r.run)
	if err != nil {
		t.Fatal(err)
	}
	for name, given := range map[string][]string{
		"another base seed":  {dirs[0], other},
		"a shard twice":      {dirs[0], dirs[0]},
		"not an exploration": {dirs[0], t.TempDir()},
		"nothing":            nil,
	} {
		var be *scenario.BadInputError
		if _, err := Merge(given); !errors.As(err, &be) {
			t.Errorf("%s: err = %v, want bad input", name, err)
		}
	}
	// Shard 3 of the same scenario and seed made on another release or
	// with another strategy (a CI matrix sharding each version with one
	// seed) is another exploration's.
	for _, c := range []struct {
		name, want string
		change     func(*Summary)
	}{
		{"another release", "Kafka 4.4.0 against 4.3.2", func(s *Summary) { s.Kafka = "4.3.2" }},
		{"another strategy", "strategy random against guided", func(s *Summary) { s.Strategy = StrategyGuided }},
	} {
		s, err := readShard(dirs[2])
		if err != nil {
			t.Fatal(err)
		}
		c.change(s)
		alt := t.TempDir()
		if err := s.Write(alt); err != nil {
			t.Fatal(err)
		}
		var be *scenario.BadInputError
		if _, err := Merge([]string{dirs[0], alt}); !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want bad input saying %q", c.name, err, c.want)
		}
	}
}

// TestBisect: a repro and its finding.json plan one run per version and
// run; the table counts the runs that showed the finding's class, and
// names the first and last affected versions.
func TestBisect(t *testing.T) {
	dir := t.TempDir()
	s := load(t, "s2")
	repro := filepath.Join(dir, "repro.yaml")
	if err := writeScenario(repro, s); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(dir, findingFile), FindingRecord{ID: "000-lost-write", Class: "lost-write"}); err != nil {
		t.Fatal(err)
	}
	loader := func(sets []string) (*scenario.Scenario, error) { return scenario.Load(repro, sets) }
	b, err := NewBisect(repro, "3.9.2,4.1.2,4.4.0", 2, nil, loader)
	if err != nil {
		t.Fatal(err)
	}
	if b.Class != "lost-write" || len(b.Plan.Cells) != 6 || b.Plan.Prefix != "bisect-" {
		t.Fatalf("class %q, %d cells, prefix %q", b.Class, len(b.Plan.Cells), b.Plan.Prefix)
	}
	// Rows as the batch writes them; 3.9.2 did not reproduce (its second
	// run acknowledged nothing: no draw), 4.1.2 once (its second run not
	// made), 4.4.0 twice.
	shown := map[string][]string{"3.9.2": {"offset-reuse"}, "4.1.2": {"lost-write"}, "4.4.0": {"lost-write"}}
	var rows []report.Row
	for i, c := range b.Plan.Cells {
		row := c.Row
		row.RunDir = filepath.Join(dir, "run", string(rune('a'+i)))
		row.Kafka = row.Settings["kafka"]
		switch {
		case row.Kafka == "3.9.2" && row.Settings["run"] == "2":
			b.unexercised[row.RunDir] = true
		case !(row.Kafka == "4.1.2" && row.Settings["run"] == "2"):
			b.classes[row.RunDir] = shown[row.Kafka]
		}
		rows = append(rows, row)
	}
	table := b.Table(rows)
	var got []string
	for _, r := range table {
		got = append(got, r.Settings+" "+itoa(r.Reproduced)+"/"+itoa(r.Runs)+" notrun "+itoa(r.NotRun)+" unexercised "+itoa(r.Unexercised))
	}
	want := []string{"kafka=3.9.2 0/2 notrun 0 unexercised 1", "kafka=4.1.2 1/2 notrun 1 unexercised 0", "kafka=4.4.0 2/2 notrun 0 unexercised 0"}
	if !slices.Equal(got, want) {
		t.Errorf("table %q, want %q", got, want)
	}
	if first, last := affected(table); first != "kafka=4.1.2" || last != "kafka=4.4.0" {
		t.Errorf("affected %s .. %s", first, last)
	}
	if md := b.Markdown(table); !strings.Contains(md, "| kafka=4.1.2 | 1/1 (1 not run) | lost-write 1 |") ||
		!strings.Contains(md, "| kafka=3.9.2 | 0/1 (1 in which Kafka acknowledged nothing) | offset-reuse 1 |") {
		t.Errorf("bisect.md:\n%s", md)
	}

	// The plan's judge tells a run that acknowledged nothing (and showed
	// nothing) from one that ran and did not reproduce.
	for i, u := range [][]string{{"nothing was acknowledged: 3 sends (3 failed, 0 unknown)"}, nil} {
		c := b.Plan.Cells[i]
		row := c.Row
		row.RunDir = filepath.Join(dir, "judged", itoa(i))
		ran := harness.Ran{Result: &harness.RunResult{Result: &checker.Result{Valid: checker.Unknown, Unexercised: u}},
			Metrics: expect.Metrics{"lost-write": 0}}
		b.Plan.Judge(c, &row, ran)
		if _, judged := b.classes[row.RunDir]; b.unexercised[row.RunDir] != (u != nil) || judged == (u != nil) {
			t.Errorf("run %d: unexercised %v, judged %v", i, b.unexercised[row.RunDir], judged)
		}
	}

	for name, c := range map[string]struct{ file, kafkas string }{
		"not a scenario":  {filepath.Join(dir, findingFile), "4.4.0"},
		"missing":         {filepath.Join(dir, "nope.yaml"), "4.4.0"},
		"unknown version": {repro, "2.0.0"},
	} {
		l := func(sets []string) (*scenario.Scenario, error) { return scenario.Load(c.file, sets) }
		var be *scenario.BadInputError
		if _, err := NewBisect(c.file, c.kafkas, 1, nil, l); !errors.As(err, &be) {
			t.Errorf("%s: err = %v, want bad input", name, err)
		}
	}
}
