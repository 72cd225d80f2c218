package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/harness/scenario"
)

// Merged is the shard folders of one exploration joined: every run and
// finding, and which shards are missing.
type Merged struct {
	Scenario string   `json:"scenario"`
	BaseSeed int64    `json:"base_seed"`
	Shards   int      `json:"shards"`
	Present  []int    `json:"present"`
	Missing  []int    `json:"missing"`
	Dirs     []string `json:"dirs"`
	// RunRecords are every shard's runs by index; Findings every
	// finding, its Dir joined to its shard's folder.
	RunRecords  []RunRecord     `json:"run_records"`
	Findings    []FindingRecord `json:"findings"`
	RunsPerHour float64         `json:"runs_per_hour"`
}

// Merge joins exploration folders (each with its explore.json) that are
// shards of one exploration: the same scenario, base seed and shard
// count. A folder that is not an exploration's, folders of two
// explorations, or a shard given twice is a *scenario.BadInputError.
func Merge(dirs []string) (*Merged, error) {
	bad := func(format string, args ...any) error {
		return &scenario.BadInputError{Err: fmt.Errorf(format, args...)}
	}
	if len(dirs) == 0 {
		return nil, bad("merge: give the exploration folders to join")
	}
	m := &Merged{Dirs: dirs}
	seen := map[int]string{}
	for k, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
		if err != nil {
			return nil, bad("%s: not an exploration folder (%v)", dir, err)
		}
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, bad("%s: %v", filepath.Join(dir, SummaryFile), err)
		}
		sh, err := ParseShard(s.Shard)
		if err != nil {
			return nil, bad("%s: %v", filepath.Join(dir, SummaryFile), err)
		}
		if sh.whole() {
			sh = Shard{I: 1, N: 1}
		}
		if k == 0 {
			m.Scenario, m.BaseSeed, m.Shards = s.Scenario, s.BaseSeed, sh.N
		} else if s.Scenario != m.Scenario || s.BaseSeed != m.BaseSeed || sh.N != m.Shards {
			return nil, bad("%s: scenario %s, base seed %d, %d shard(s); %s has %s, %d, %d: not shards of one exploration",
				dir, s.Scenario, s.BaseSeed, sh.N, dirs[0], m.Scenario, m.BaseSeed, m.Shards)
		}
		if other, dup := seen[sh.I]; dup {
			return nil, bad("%s and %s are both shard %d/%d", other, dir, sh.I, sh.N)
		}
		seen[sh.I] = dir
		m.RunRecords = append(m.RunRecords, s.RunRecords...)
		for _, f := range s.Findings {
			f.Dir = filepath.Join(dir, f.Dir)
			m.Findings = append(m.Findings, f)
		}
		m.RunsPerHour += s.RunsPerHour
	}
	for i := 1; i <= m.Shards; i++ {
		if _, ok := seen[i]; ok {
			m.Present = append(m.Present, i)
		} else {
			m.Missing = append(m.Missing, i)
		}
	}
	slices.SortStableFunc(m.RunRecords, func(a, b RunRecord) int { return a.Index - b.Index })
	slices.SortStableFunc(m.Findings, func(a, b FindingRecord) int { return a.Run - b.Run })
	return m, nil
}

// Markdown is the merged page: the shards, the findings, every run.
func (m *Merged) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kchaos explore %s, %d shard(s) merged\n\n", m.Scenario, m.Shards)
	fmt.Fprintf(&b, "Base seed %d. Shards present: %v.", m.BaseSeed, m.Present)
	if len(m.Missing) > 0 {
		fmt.Fprintf(&b, " **Missing shards: %v** (their runs are not in this page).", m.Missing)
	}
	fmt.Fprintf(&b, "\n\n%d runs, %d findings, %.1f runs per hour over all shards.\n\n", len(m.RunRecords), len(m.Findings), m.RunsPerHour)
	writeFindings(&b, m.Findings, "")
	b.WriteString("## Runs\n\n| run | seed | verdict | anomalies |\n|---|---|---|---|\n")
	for _, r := range m.RunRecords {
		fmt.Fprintf(&b, "| %d | %d | %s | %s |\n", r.Index, r.Seed, r.Verdict, orDash(strings.Join(r.Classes, ", ")))
	}
	return b.String()
}
