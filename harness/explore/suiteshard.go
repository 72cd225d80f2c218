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
	// Whole is the number of whole runs joined (one per release,
	// mergeWhole); 0 when the folders were shards of one run.
	Whole int
}

// IsSuite reports whether dir is a suite's folder (suite.json), which
// merge joins as suites rather than as explorations.
func IsSuite(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "suite.json"))
	return err == nil
}

// MergeSuites joins suite folders into one suite file: every cell's row,
// its run folder made absolute, and what is missing. The folders are
// either shards of one suite (the same name and cells, --shard I/N with
// one N), or whole runs of one suite over disjoint cells: a suite run
// once per Kafka version, as a CI matrix of one job per release runs it
// (or as this machine, one release a sitting), joined into the one page
// and one table of every release (mergeWhole). Bad folders are a
// *scenario.BadInputError.
func MergeSuites(dirs []string) (*MergedSuite, error) {
	parts := make([]suitePart, 0, len(dirs))
	whole := true
	for _, dir := range dirs {
		p, err := readSuitePart(dir)
		if err != nil {
			return nil, err
		}
		whole = whole && p.shard.N == 1
		parts = append(parts, p)
	}
	if whole && len(parts) > 1 {
		return mergeWhole(parts)
	}
	m := &MergedSuite{}
	seen := map[int]string{}
	var all []string
	for k, p := range parts {
		if k == 0 {
			m.File.Name, m.Shards, all = p.file.Name, p.shard.N, p.rec.Cells
		} else if p.file.Name != m.File.Name || p.shard.N != m.Shards || !slices.Equal(p.rec.Cells, all) {
			return nil, badMerge("%s: suite %s in %d shard(s); %s: suite %s in %d: not shards of one suite (or of other cells)",
				p.dir, p.file.Name, p.shard.N, dirs[0], m.File.Name, m.Shards)
		}
		if other, dup := seen[p.shard.I]; dup {
			return nil, badMerge("%s and %s are both shard %d/%d", other, p.dir, p.shard.I, p.shard.N)
		}
		seen[p.shard.I] = p.dir
		m.File.Cells = append(m.File.Cells, p.file.Cells...)
	}
	for i := 1; i <= m.Shards; i++ {
		if _, ok := seen[i]; !ok {
			m.Missing = append(m.Missing, i)
		}
	}
	m.order(all)
	return m, nil
}

// mergeWhole joins whole runs of one suite whose cells are disjoint (a
// cell is scenario/settings/version, so runs of one suite on different
// releases are): the union of their cells, in the folders' order, none
// missing. Two runs holding one cell are refused, naming it: a merge
// does not choose between two verdicts of one cell.
func mergeWhole(parts []suitePart) (*MergedSuite, error) {
	m := &MergedSuite{Shards: 1, Whole: len(parts)}
	m.File.Name = parts[0].file.Name
	owner := map[string]string{}
	var all []string
	for _, p := range parts {
		if p.file.Name != m.File.Name {
			return nil, badMerge("%s: suite %s; %s: suite %s: not runs of one suite", p.dir, p.file.Name, parts[0].dir, m.File.Name)
		}
		cells := p.rec.Cells
		if len(cells) == 0 {
			for _, r := range p.file.Cells {
				cells = append(cells, r.ID)
			}
		}
		for _, id := range cells {
			if other, dup := owner[id]; dup {
				return nil, badMerge("%s and %s both ran cell %s: join runs over different versions or cells, or the shards of one run", other, p.dir, id)
			}
			owner[id] = p.dir
		}
		all = append(all, cells...)
		m.File.Cells = append(m.File.Cells, p.file.Cells...)
	}
	m.order(all)
	return m, nil
}

// order names the cells of all no folder has and sorts the merged cells
// in all's order.
func (m *MergedSuite) order(all []string) {
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
}

// suitePart is one suite folder read for a merge: its suite file (run
// folders made absolute, verdicts measured where an old file lacks them)
// and its shard record.
type suitePart struct {
	dir   string
	file  report.SuiteFile
	rec   ShardRecord
	shard Shard
}

func badMerge(format string, args ...any) error {
	return &scenario.BadInputError{Err: fmt.Errorf(format, args...)}
}

func readSuitePart(dir string) (suitePart, error) {
	p := suitePart{dir: dir}
	f, err := report.ReadSuite(dir)
	if err != nil {
		return p, badMerge("%s: not a suite folder (%v)", dir, err)
	}
	switch b, err := histories.ReadRegular(filepath.Join(dir, shardFile)); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return p, badMerge("%s: %v", dir, err)
	default:
		if err := json.Unmarshal(b, &p.rec); err != nil {
			return p, badMerge("%s: %s: %v", dir, shardFile, err)
		}
	}
	sh, err := ParseShard(p.rec.Shard)
	if err != nil {
		return p, badMerge("%s: %s: %v", dir, shardFile, err)
	}
	if sh.whole() {
		sh = Shard{I: 1, N: 1}
	}
	p.shard = sh
	for i, r := range f.Cells {
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
		f.Cells[i] = r
	}
	p.file = f
	return p, nil
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
