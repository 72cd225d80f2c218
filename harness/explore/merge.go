package explore

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/owned"
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
	// Failed are the shards none of whose runs was judged (every run
	// failed before its check, or none ran): explore itself exits 2 on
	// such a shard.
	Failed []int `json:"failed,omitempty"`
	// RunRecords are every shard's runs by index; Findings every
	// finding, its Dir joined to its shard's folder.
	RunRecords  []RunRecord     `json:"run_records"`
	Findings    []FindingRecord `json:"findings"`
	RunsPerHour float64         `json:"runs_per_hour"`
	// Transitions are the distinct transitions the shards covered
	// together: the sum of their coverage.json, written beside merged.json.
	Transitions int `json:"transitions"`
	coverage    states.Coverage
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
	var head *Summary
	for k, dir := range dirs {
		s, err := readShard(dir)
		if err != nil {
			return nil, &scenario.BadInputError{Err: err}
		}
		sh, err := ParseShard(s.Shard)
		if err != nil {
			return nil, bad("%s: %v", filepath.Join(dir, SummaryFile), err)
		}
		if sh.whole() {
			sh = Shard{I: 1, N: 1}
		}
		if k == 0 {
			m.Scenario, m.BaseSeed, m.Shards, head = s.Scenario, s.BaseSeed, sh.N, s
		} else if s.Scenario != m.Scenario || s.BaseSeed != m.BaseSeed || sh.N != m.Shards {
			return nil, bad("%s: scenario %s, base seed %d, %d shard(s); %s has %s, %d, %d: not shards of one exploration",
				dir, s.Scenario, s.BaseSeed, sh.N, dirs[0], m.Scenario, m.BaseSeed, m.Shards)
		} else if d := cmp.Or(configDiff(head, s), strategyDiff(head.Strategy, s.Strategy)); d != "" {
			// The same name and seed on another release, settings, mix or
			// strategy (a CI matrix sharding each version with one seed)
			// is another exploration, not this one's other shard.
			return nil, bad("%s and %s: %s: not shards of one exploration", dirs[0], dir, d)
		}
		if other, dup := seen[sh.I]; dup {
			return nil, bad("%s and %s are both shard %d/%d", other, dir, sh.I, sh.N)
		}
		seen[sh.I] = dir
		if s.judged() == 0 {
			m.Failed = append(m.Failed, sh.I)
		}
		m.RunRecords = append(m.RunRecords, s.RunRecords...)
		for _, f := range s.Findings {
			f.Dir = filepath.Join(dir, f.Dir)
			m.Findings = append(m.Findings, f)
		}
		m.RunsPerHour += s.RunsPerHour
		if c, err := states.Read(filepath.Join(dir, states.CoverageFile)); err == nil {
			m.coverage.Add(c)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, bad("%v", err)
		}
	}
	m.Transitions = m.coverage.Distinct()
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

// shardFields are the fields every explore.json has (Summary.Write
// writes them all): a JSON object without them is not an exploration's
// record, whatever it parses as.
var shardFields = []string{"scenario", "kafka", "base_seed", "started", "run_records", "findings"}

// readShard reads dir's explore.json (a regular file only: a FIFO would
// block the merge) and refuses one that is not an exploration's record:
// a field missing ({} parses as an empty Summary), an empty scenario, a
// zero base seed or start.
func readShard(dir string) (*Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := histories.ReadRegular(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not an exploration folder (%v)", dir, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var missing []string
	for _, f := range shardFields {
		if _, ok := fields[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: not an exploration's record: field(s) %s missing", path, strings.Join(missing, ", "))
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case s.Scenario == "":
		return nil, fmt.Errorf("%s: not an exploration's record: scenario is empty", path)
	case s.BaseSeed == 0:
		return nil, fmt.Errorf("%s: not an exploration's record: base_seed is 0 (explore records the seed it picked)", path)
	case s.Started.IsZero():
		return nil, fmt.Errorf("%s: not an exploration's record: started is not set", path)
	}
	return &s, nil
}

// Write writes merged.json and merged.md into dir (made as needed; each
// file as kchaos writes its outputs, report.WriteOutput).
func (m *Merged) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := owned.CheckAll(dir, "merged.json", "merged.md", states.CoverageFile); err != nil {
		return err
	}
	if m.coverage.Runs > 0 {
		if err := m.coverage.Write(filepath.Join(dir, states.CoverageFile)); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(dir, "merged.json"), m); err != nil {
		return err
	}
	return owned.Write(filepath.Join(dir, "merged.md"), []byte(m.Markdown()))
}

// Markdown is the merged page: the shards, the findings, every run.
func (m *Merged) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kchaos explore %s, %d shard(s) merged\n\n", m.Scenario, m.Shards)
	fmt.Fprintf(&b, "Base seed %d. Shards present: %v.", m.BaseSeed, m.Present)
	if len(m.Missing) > 0 {
		fmt.Fprintf(&b, " **Missing shards: %v** (their runs are not in this page).", m.Missing)
	}
	if len(m.Failed) > 0 {
		fmt.Fprintf(&b, " **Shards with no run judged: %v** (every run failed before its check).", m.Failed)
	}
	fmt.Fprintf(&b, "\n\n%d runs, %d findings, %.1f runs per hour, %d distinct transitions over all shards.\n\n", len(m.RunRecords), len(m.Findings),
		m.RunsPerHour, m.Transitions)
	writeFindings(&b, m.Findings, "")
	b.WriteString("## Runs\n\n| run | seed | verdict | anomalies |\n|---|---|---|---|\n")
	for _, r := range m.RunRecords {
		fmt.Fprintf(&b, "| %d | %d | %s | %s |\n", r.Index, r.Seed, r.Verdict, orDash(strings.Join(r.Classes, ", ")))
	}
	return b.String()
}
