package explore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// seedsPlan plans the built-in seeds suite on one version.
func seedsPlan(t *testing.T, version string) *harness.Plan {
	t.Helper()
	s, err := harness.LoadSuite("seeds")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := harness.SuitePlan(s, harness.SuiteOptions{Kafka: []string{version}, Runs: 1,
		Load: func(name string, sets []string) (*scenario.Scenario, error) { return scenario.Load(name, sets) }})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// writeMatched writes plan's cells into a new folder as a suite run
// would, every row matched and valid, and returns the folder and the
// cells' IDs.
func writeMatched(t *testing.T, plan *harness.Plan) (dir string, ids []string) {
	t.Helper()
	dir = t.TempDir()
	var rows []report.Row
	for _, c := range plan.Cells {
		row := c.Row
		row.Status, row.Verdict = "match", report.Valid
		row.RunDir = filepath.Join(dir, "runs", row.Scenario)
		rows = append(rows, row)
		ids = append(ids, row.ID)
	}
	if err := plan.Batch(rows).Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir, ids
}

// suiteShards plans the built-in seeds suite on one version, splits it
// in n shards and writes each shard's folder as a suite run would (its
// rows matched, shard.json beside), skipping the shards in skip.
func suiteShards(t *testing.T, n int, skip ...int) (dirs []string, all []string) {
	t.Helper()
	for i := 1; i <= n; i++ {
		plan := seedsPlan(t, "4.4.0")
		rec := ShardPlan(plan, Shard{I: i, N: n})
		all = rec.Cells
		if slices.Contains(skip, i) {
			continue
		}
		dir, _ := writeMatched(t, plan)
		if err := WriteShard(dir, rec); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs, all
}

// TestSuiteShards: the shards of a suite run disjoint cells that together
// are all of them; merged, they are one suite page (cells in the suite's
// order, run folders still found) with junit.xml, and a missing shard is
// named with its cells and makes the merge unknown.
func TestSuiteShards(t *testing.T) {
	dirs, all := suiteShards(t, 3)
	m, err := MergeSuites(dirs)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range m.File.Cells {
		ids = append(ids, r.ID)
		if r.Verdict != report.Valid {
			t.Errorf("cell %s: verdict %q through suite.json, want valid (the Findings section reads it)", r.ID, r.Verdict)
		}
		if !filepath.IsAbs(r.RunDir) {
			t.Errorf("cell %s: run folder %q not made absolute", r.ID, r.RunDir)
		}
	}
	if !slices.Equal(ids, all) || len(m.Missing) != 0 || m.exitCode() != 0 {
		t.Errorf("merged cells %v, want %v; missing %v; exit %d", ids, all, m.Missing, m.exitCode())
	}
	out := t.TempDir()
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"suite.md", "suite.json", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("merged folder lacks %s", f)
		}
	}

	dirs, _ = suiteShards(t, 3, 2)
	m, err = MergeSuites(dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := Shard{I: 2, N: 3}.items(len(all))
	if !slices.Equal(m.Missing, []int{2}) || len(m.MissingCells) != len(want) || m.exitCode() != 2 {
		t.Errorf("missing %v, cells %v (want %d), exit %d", m.Missing, m.MissingCells, len(want), m.exitCode())
	}
	var be *scenario.BadInputError
	if _, err := MergeSuites([]string{dirs[0], dirs[0]}); !errors.As(err, &be) {
		t.Errorf("a shard twice: %v", err)
	}
	other, _ := suiteShards(t, 2)
	if _, err := MergeSuites([]string{dirs[0], other[1]}); !errors.As(err, &be) {
		t.Errorf("shards of two splits: %v", err)
	}
}

// TestSuiteShardsWithoutVerdicts: a shard whose suite.json predates the
// verdict field (2026-12-02) is measured again from its run folders, so
// the merged Findings section counts its runs instead of calling them
// unjudged.
func TestSuiteShardsWithoutVerdicts(t *testing.T) {
	dirs, _ := suiteShards(t, 1)
	run := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "histories", "testdata", "duplicate-idempotent")
	for _, f := range []string{"history.jsonl", "run.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, _, err := checker.CheckPath(run, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := report.ReadSuite(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Cells {
		f.Cells[i].Measure = report.Measure{}
		f.Cells[i].RunDir = run
	}
	if err := report.SuiteBatch(f).Write(dirs[0]); err != nil {
		t.Fatal(err)
	}
	m, err := MergeSuites(dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := report.RunVerdict(res.Valid.String())
	if want == "" || want == report.Unchecked {
		t.Fatalf("checker verdict %v", res.Valid)
	}
	for _, r := range m.File.Cells {
		if r.Verdict != want {
			t.Fatalf("cell %s: verdict %q, want %q measured from its run folder", r.ID, r.Verdict, want)
		}
	}
}

// wholeSuite writes one whole run of the seeds suite on version as a
// suite run writes it (no shard.json: the run was not sharded).
func wholeSuite(t *testing.T, version string) (dir string, ids []string) {
	t.Helper()
	return writeMatched(t, seedsPlan(t, version))
}

// TestSuiteWholeRunsByVersion: whole runs of one suite on different
// releases (one sitting, or one CI job, per release) join into one page
// of every release, each cell once, in the folders' order, none missing;
// two runs holding one cell, or runs of two suites, are refused, naming
// what clashes.
func TestSuiteWholeRunsByVersion(t *testing.T) {
	a, idsA := wholeSuite(t, "4.0.2")
	b, idsB := wholeSuite(t, "4.4.0")
	m, err := MergeSuites([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range m.File.Cells {
		ids = append(ids, r.ID)
	}
	if want := append(slices.Clone(idsA), idsB...); !slices.Equal(ids, want) || m.Whole != 2 || len(m.MissingCells) != 0 || len(m.Missing) != 0 || m.exitCode() != 0 {
		t.Errorf("merged %v, want %v; missing %v %v; exit %d", ids, want, m.Missing, m.MissingCells, m.exitCode())
	}
	var be *scenario.BadInputError
	c, _ := wholeSuite(t, "4.4.0")
	if _, err := MergeSuites([]string{a, b, c}); !errors.As(err, &be) || !strings.Contains(err.Error(), idsB[0]) {
		t.Errorf("two runs on 4.4.0: %v, want a bad input naming cell %s", err, idsB[0])
	}
	shards, _ := suiteShards(t, 2)
	if _, err := MergeSuites([]string{a, shards[0]}); !errors.As(err, &be) {
		t.Errorf("a whole run and a shard of another: %v", err)
	}
}
