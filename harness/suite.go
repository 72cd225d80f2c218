package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// SuiteOptions tune a suite.
type SuiteOptions struct {
	Options
	// Kafka lists the versions to run on ("4.1.x", "latest" and full
	// versions); empty means the suite's own list, else every release
	// kchaos knows.
	Kafka []string
	// Only keeps the entries of these scenarios (by name); empty keeps all.
	Only []string
	// Sets apply to every cell, before the cell's own settings.
	Sets []string
	// Runs is the number of runs per cell (default 1); each is a cell of
	// its own, "run=N" in its id.
	Runs int
	// Baseline is an earlier suite folder to compare with.
	Baseline string
	// Load reads a scenario by name or file with sets (the CLI applies its
	// --broker-config and --topic-config here); nil means scenario.Load.
	Load func(name string, sets []string) (*scenario.Scenario, error)
	// OnCell is told about each cell as it ends.
	OnCell func(done, total int, c report.Cell)
}

// ParseOnly reads --only: scenario names, comma-separated. An empty value
// or a blank name in the list ("s1,,s2") is refused: it would otherwise
// mean "every scenario", the opposite of what a user narrowing a suite
// asked for.
func ParseOnly(v string) ([]string, error) {
	var out []string
	for i, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name == "" {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("--only %q: name %d is blank: want scenario names, comma-separated (e.g. s1,s2)", v, i+1)}
		}
		out = append(out, name)
	}
	return out, nil
}

// plannedCell is a cell before it runs: its scenario loaded and checked.
type plannedCell struct {
	cell     report.Cell
	scenario *scenario.Scenario
}

// PlanSuite expands the suite into cells and loads every one before any
// cluster starts, so that bad input (an unknown scenario, a bad --set or
// vary value, an unknown version) fails at once. A combination Kafka rules
// out (ELR on 3.9) becomes a not-applicable cell, never an error.
func PlanSuite(s *Suite, opts SuiteOptions) ([]plannedCell, error) {
	load := opts.Load
	if load == nil {
		load = scenario.Load
	}
	versions := opts.Kafka
	if len(versions) == 0 {
		versions = s.Kafka
	}
	if len(versions) == 0 {
		versions = cluster.Releases
	}
	var resolved []string
	for _, v := range versions {
		r, err := cluster.ResolveVersion(v)
		if err != nil {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("--kafka: %v", err)}
		}
		resolved = append(resolved, r)
	}
	for _, name := range opts.Only {
		if !slices.ContainsFunc(s.Entries, func(e SuiteEntry) bool { return e.Scenario == name }) {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("--only %s: suite %s has no such scenario", name, s.Name)}
		}
	}
	runs := max(opts.Runs, 1)
	var out []plannedCell
	seen := map[string]bool{}
	for _, e := range s.Entries {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, e.Scenario) {
			continue
		}
		for _, combo := range Combinations(e.variations()) {
			for _, v := range resolved {
				for run := 1; run <= runs; run++ {
					pc, err := planCell(e.Scenario, combo, v, run, runs, opts.Sets, load)
					if err != nil {
						return nil, err
					}
					// Two entries, two vary values or two --kafka versions
					// (4.1.x and 4.1.2) can name one cell: refused rather
					// than run twice under one id.
					if seen[pc.cell.ID] {
						return nil, &scenario.BadInputError{Err: fmt.Errorf("suite %s: cell %s would run twice (a scenario listed twice, a value repeated in vary, or two --kafka versions that resolve to one release): use --runs for repeats", s.Name, pc.cell.ID)}
					}
					seen[pc.cell.ID] = true
					out = append(out, pc)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("suite %s: no cells to run", s.Name)}
	}
	return out, nil
}

func planCell(name string, combo map[string]string, version string, run, runs int,
	sets []string, load func(string, []string) (*scenario.Scenario, error)) (plannedCell, error) {
	id := cellID(name, combo, version, run, runs)
	all := append(append(append([]string{}, sets...), SetsFor(combo)...), "cluster.kafka="+version)
	c := report.Cell{ID: id, Scenario: name, Settings: combo, Kafka: version}
	s, err := load(name, all)
	if err != nil {
		// Load once more without the version: if the scenario is fine on
		// its own, the version rules it out (ELR before 4.0).
		if base, berr := load(name, append(append([]string{}, sets...), SetsFor(combo)...)); berr == nil {
			if reason := notApplicable(base, version); reason != "" {
				c.Status, c.Reason = report.CellNotApplicable, reason
				return plannedCell{cell: c}, nil
			}
		}
		return plannedCell{}, &scenario.BadInputError{Err: fmt.Errorf("cell %s: %w", id, err)}
	}
	return plannedCell{cell: c, scenario: s}, nil
}

// notApplicable says why Kafka version rules out the scenario's settings,
// or "". The cluster's own validation is the rule (ELR, transaction.version
// levels before 4.0, ...), and the workload's version rules (the KIP-848
// group protocol): the scenario loaded on its own version, so what
// the other version refuses is the version's doing.
func notApplicable(s *scenario.Scenario, version string) string {
	if _, err := cluster.ParseVersion(version); err != nil {
		return ""
	}
	cc := s.Cluster.ClusterConfig()
	cc.KafkaVersion, cc.Image = version, ""
	cc.Defaults()
	if err := cc.Validate(); err != nil {
		return err.Error()
	}
	v, _ := cluster.ParseVersion(version)
	if path, problem := s.WorkloadVersionProblem(v); problem != "" {
		return path + ": " + problem
	}
	return ""
}

// cellID is "scenario/settings/version" with settings "k=v,k=v" sorted by
// key ("-" when nothing varies) and ",run=N" when a cell runs more than once.
func cellID(name string, combo map[string]string, version string, run, runs int) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(combo)) {
		kv = append(kv, k+"="+combo[k])
	}
	if runs > 1 {
		kv = append(kv, fmt.Sprintf("run=%d", run))
	}
	settings := strings.Join(kv, ",")
	if settings == "" {
		settings = "-"
	}
	return name + "/" + settings + "/" + version
}

// SuiteResult is a finished (or interrupted) suite.
type SuiteResult struct {
	Dir     string
	Cells   []report.Cell
	Changes []report.Change
}

// ExitCode is the suite's exit code: 1 when any cell differs from its
// expectation, else 2 when any could not be judged (or has no applicable
// expectation), else 0. Not-applicable cells count for nothing.
func (r *SuiteResult) ExitCode() int {
	n := report.SuiteCounts(r.Cells)
	switch {
	case n[report.CellDiffer] > 0:
		return 1
	case n[report.CellUnjudged] > 0 || n[report.CellNoExpectation] > 0:
		return 2
	}
	return 0
}

// RunSuite runs every planned cell on a fresh cluster, judges it against
// its scenario's outcome checks, and writes store/suite-<name>/<timestamp>/
// after each cell. An error is bad input (from PlanSuite, before any
// cluster starts) or a store that cannot be written.
func RunSuite(ctx context.Context, s *Suite, opts SuiteOptions) (*SuiteResult, error) {
	plan, err := PlanSuite(s, opts)
	if err != nil {
		return nil, err
	}
	var base *report.SuiteFile
	if opts.Baseline != "" {
		b, err := report.ReadSuite(opts.Baseline)
		if err != nil {
			return nil, &scenario.BadInputError{Err: err}
		}
		base = &b
	}
	dir, err := makeStoreDir(opts.Store, "suite name", s.Name, "suite-")
	if err != nil {
		return nil, err
	}
	res := &SuiteResult{Dir: dir}
	write := func() error {
		f := report.SuiteFile{Name: s.Name, Cells: res.Cells}
		if base != nil {
			f.Baseline = opts.Baseline
			res.Changes = report.Compare(base.Cells, res.Cells)
			f.Changes = res.Changes
		}
		return report.WriteSuite(res.Dir, f)
	}
	for i, pc := range plan {
		if ctx.Err() != nil {
			break
		}
		c := pc.cell
		if pc.scenario != nil {
			c = runCell(ctx, pc, opts.Options)
		}
		res.Cells = append(res.Cells, c)
		if err := write(); err != nil {
			return res, err
		}
		if opts.OnCell != nil {
			opts.OnCell(i+1, len(plan), c)
		}
	}
	return res, write()
}

// runCell runs one cell and judges it.
func runCell(ctx context.Context, pc plannedCell, opts Options) report.Cell {
	c := pc.cell
	begin := time.Now()
	out, err := Run(ctx, pc.scenario, opts)
	c.Seconds = time.Since(begin).Seconds()
	if out != nil {
		c.RunDir = out.Dir
	}
	switch {
	case err != nil && (out == nil || out.Result == nil):
		// The story never ran (a cluster that could not start, a missing
		// image): the cell carries no figure, only why.
		c.Status, c.Reason = report.CellUnjudged, report.NotRun+err.Error()
		return c
	case err != nil:
		c.Status, c.Reason = report.CellUnjudged, "the run failed: "+err.Error()
		return c
	case out.NemesisErr != nil:
		// The story may not have happened: its expectation cannot be held
		// against what did.
		c.Status, c.Reason = report.CellUnjudged, "the schedule did not play out: "+out.NemesisErr.Error()
	}
	m, merr := Metrics(out.Dir)
	c.StorySeconds = m[expect.HistorySeconds]
	c.Outcome = outcomeText(m)
	status, results := expect.Judge(pc.scenario.Checks(), pc.scenario.Settings(), m)
	for _, r := range results {
		c.Checks = append(c.Checks, r.String())
	}
	if c.Status == "" {
		c.Status = string(status)
		switch status {
		case expect.Unjudged:
			c.Reason = "a check's metric was not measured"
			if merr != nil {
				c.Reason += ": " + merr.Error()
			}
		case expect.NoExpectation:
			c.Reason = fmt.Sprintf("no outcome check applies to settings %v", pc.scenario.Settings())
		}
	}
	return c
}

// outcomeText is the measured anomalies and errors in one line, nonzero
// ones only: "lost-write 2518, offset-reuse 2518, acked 9120, offline 20.5 s".
func outcomeText(m expect.Metrics) string {
	var parts []string
	for _, a := range expect.Anomalies {
		if v, ok := m[a]; ok && v > 0 {
			parts = append(parts, fmt.Sprintf("%s %g", a, v))
		}
	}
	if _, ok := m["lost-write"]; ok && len(parts) == 0 {
		parts = append(parts, "no anomalies")
	}
	if v, ok := m[expect.Acked]; ok {
		parts = append(parts, fmt.Sprintf("acked %g", v))
	}
	if v, ok := m[expect.OfflineSeconds]; ok && v > 0 {
		parts = append(parts, fmt.Sprintf("offline %.1f s", v))
	}
	if v, ok := m[expect.LeaderAfterFault]; ok {
		parts = append(parts, fmt.Sprintf("leader after fault %g", v))
	}
	var errs []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if code, ok := strings.CutPrefix(k, expect.ErrorsPrefix); ok {
			errs = append(errs, fmt.Sprintf("%s %g", code, m[k]))
		}
	}
	if len(errs) > 0 {
		parts = append(parts, "errors: "+strings.Join(errs, ", "))
	}
	return strings.Join(parts, "; ")
}
