package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/report"
)

// shardFile records, in a suite's folder, which shard of which cells the
// folder ran (shard.json): what merge needs to say what is missing.
const shardFile = "shard.json"

// ShardRecord is shard.json.
type ShardRecord struct {
	Shard string `json:"shard"`
	// cells are the IDs of every cell of the whole suite, in plan order.
	Cells []string `json:"cells"`
}

// ShardPlan keeps the cells of plan that shard sh runs (cell i of the
// whole plan belongs to shard i mod N + 1) and returns the record to
// write beside the batch's pages (WriteShard). The whole shard keeps
// every cell.
func ShardPlan(plan *harness.Plan, sh Shard) ShardRecord {
	rec := ShardRecord{Shard: sh.String()}
	var kept []harness.Cell
	for i, c := range plan.Cells {
		rec.Cells = append(rec.Cells, c.Row.ID)
		if sh.owns(i) {
			kept = append(kept, c)
		}
	}
	plan.Cells = kept
	return rec
}

// WriteShard writes shard.json into a batch's folder.
func WriteShard(dir string, rec ShardRecord) error {
	return writeJSON(filepath.Join(dir, shardFile), rec)
}

// MergedSuite is the shard folders of one suite joined.
type MergedSuite struct {
	File    report.SuiteFile
	Shards  int
	Missing []int
	// MissingCells are the cells of the whole suite no folder has.
	MissingCells []string
}

// IsSuite reports whether dir is a suite's folder (suite.json), which
// merge joins as suites rather than as explorations.
func IsSuite(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "suite.json"))
	return err == nil
}

// MergeSuites joins suite folders that are shards of one suite (the same
// name and cells, --shard I/N with one N) into one suite file: every
// cell's row, its run folder made absolute, and what is missing. Bad
// folders are a *scenario.BadInputError.
func MergeSuites(dirs []string) (*MergedSuite, error) {
	bad := func(format string, args ...any) error {
		return &scenario.BadInputError{Err: fmt.Errorf(format, args...)}
	}
	m := &MergedSuite{}
	seen := map[int]string{}
	var all []string
	for k, dir := range dirs {
		f, err := report.ReadSuite(dir)
		if err != nil {
			return nil, bad("%s: not a suite folder (%v)", dir, err)
		}
		var rec ShardRecord
		switch b, err := histories.ReadRegular(filepath.Join(dir, shardFile)); {
		case errors.Is(err, fs.ErrNotExist):
			rec.Shard = ""
		case err != nil:
			return nil, bad("%s: %v", dir, err)
		default:
			if err := json.Unmarshal(b, &rec); err != nil {
				return nil, bad("%s: %s: %v", dir, shardFile, err)
			}
		}
		sh, err := ParseShard(rec.Shard)
		if err != nil {
			return nil, bad("%s: %s: %v", dir, shardFile, err)
		}
		if sh.whole() {
			sh = Shard{I: 1, N: 1}
		}
		if k == 0 {
			m.File.Name, m.Shards, all = f.Name, sh.N, rec.Cells
		} else if f.Name != m.File.Name || sh.N != m.Shards || !slices.Equal(rec.Cells, all) {
			return nil, bad("%s: suite %s in %d shard(s); %s: suite %s in %d: not shards of one suite (or of other cells)",
				dir, f.Name, sh.N, dirs[0], m.File.Name, m.Shards)
		}
		if other, dup := seen[sh.I]; dup {
			return nil, bad("%s and %s are both shard %d/%d", other, dir, sh.I, sh.N)
		}
		seen[sh.I] = dir
		for _, r := range f.Cells {
			if r.RunDir != "" && !filepath.IsAbs(r.RunDir) {
				r.RunDir = filepath.Join(dir, filepath.FromSlash(r.RunDir))
			}
			if r.Verdict == "" && r.RunDir != "" {
				// A shard written before suite.json carried verdicts
				// (2026-12-02): measure its run folder again, else the
				// merged Findings section calls every run unjudged.
				if row, err, _ := report.MeasureRun(r.RunDir, nil); err == nil {
					r.Measure = row.Measure
				}
			}
			m.File.Cells = append(m.File.Cells, r)
		}
	}
	for i := 1; i <= m.Shards; i++ {
		if _, ok := seen[i]; !ok {
			m.Missing = append(m.Missing, i)
		}
	}
	have := map[string]bool{}
	for _, r := range m.File.Cells {
		have[r.ID] = true
	}
	order := map[string]int{}
	for i, id := range all {
		order[id] = i
		if !have[id] {
			m.MissingCells = append(m.MissingCells, id)
		}
	}
	slices.SortStableFunc(m.File.Cells, func(a, b report.Row) int { return order[a.ID] - order[b.ID] })
	return m, nil
}

// Write writes the merged suite's page, suite.json and junit.xml into dir
// (report.SuiteBatch: the same pages a suite writes).
func (m *MergedSuite) Write(dir string) error { return report.SuiteBatch(m.File).Write(dir) }

// exitCode is the suite page's rule over the merged cells; a merge with
// shards missing and nothing worse is 2 (unknown), and so is one that
// judged no cell (Exit with allowEmpty accepts every cell not applicable).
func (m *MergedSuite) exitCode() int { return m.Exit(false) }

// Exit is ExitCode with the page's allowEmpty (--allow-empty).
func (m *MergedSuite) Exit(allowEmpty bool) int {
	code := harness.ExitCode(report.SuitePage, m.File.Cells, false, allowEmpty)
	if code == 0 && (len(m.Missing) > 0 || len(m.MissingCells) > 0) {
		code = 2
	}
	return code
}

// NothingJudged says why, when no merged cell was judged; nil otherwise.
func (m *MergedSuite) NothingJudged() error {
	return harness.NothingJudged(report.SuitePage, m.File.Cells)
}
