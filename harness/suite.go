package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// SuiteOptions say which cells of a suite to plan.
type SuiteOptions struct {
	// Kafka lists the versions to run on ("4.1.x", "latest" and full
	// versions); empty means the suite's own list, else every release
	// kchaos knows.
	Kafka []string
	// Only keeps the entries of these scenarios (by name); empty keeps all.
	Only []string
	// Sets apply to every cell, before the cell's own settings.
	Sets []string
	// Runs is the number of runs per cell (0: DefaultRuns), raised for an
	// entry that asks for more (SuiteEntry.Runs); each run is a cell of
	// its own, "run=N" in its id.
	Runs int
	// Baseline is an earlier suite folder to compare with.
	Baseline string
	// Load reads a scenario by name or file with sets (the CLI applies its
	// --broker-config and --topic-config here); nil means scenario.Load.
	Load func(name string, sets []string) (*scenario.Scenario, error)
	// ReuseClusters lets a cell leave its cluster to the next cell whose
	// cluster settings are the same (--reuse-clusters; explore's rules,
	// harness.Clusters: never after a fault that leaves state, a failed
	// or interrupted run, or an unhealthy cluster; fresh names on a kept
	// cluster; run.json says which cluster a cell ran on). Off by default:
	// each cell on a fresh cluster, so that no cell's figures can depend
	// on what the cell before it left; on, a suite's cells cost seconds
	// instead of a cluster start each (issue 40, item 5).
	ReuseClusters bool
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

// planSuite expands the suite into cells and loads every one before any
// cluster starts, so that bad input (an unknown scenario, a bad --set or
// vary value, an unknown version) fails at once. A combination Kafka rules
// out (ELR on 3.9) becomes a not-applicable cell, never an error.
func planSuite(s *Suite, opts SuiteOptions) ([]Cell, error) {
	load := opts.Load
	if load == nil {
		load = scenario.Load
	}
	// The versions, each problem blamed on where it was written: --kafka,
	// else the suite's kafka: (LoadSuite has checked a file's already).
	versions, label := opts.Kafka, func(int) string { return "--kafka" }
	if len(versions) == 0 {
		versions, label = s.Kafka, func(i int) string { return fmt.Sprintf("suite %s: kafka[%d]", s.Name, i) }
	}
	if len(versions) == 0 {
		versions = cluster.Releases
	}
	resolved, err := cluster.ResolveVersions(versions, label)
	if err != nil {
		return nil, &scenario.BadInputError{Err: err}
	}
	for _, name := range opts.Only {
		if !slices.ContainsFunc(s.Entries, func(e SuiteEntry) bool { return e.Scenario == name }) {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("--only %s: suite %s has no such scenario", name, s.Name)}
		}
	}
	var out []Cell
	seen := map[string]bool{}
	for _, e := range s.Entries {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, e.Scenario) {
			continue
		}
		runs := e.runs(opts.Runs)
		for _, combo := range Combinations(e.variations()) {
			for _, v := range resolved {
				for run := 1; run <= runs; run++ {
					pc, err := planCell(e.Scenario, combo, v, run, runs, opts.Sets, load)
					if err != nil {
						return nil, err
					}
					// Two entries or two vary values can name one cell
					// (two versions that resolve to one were refused
					// above): refused rather than run twice under one id.
					if seen[pc.Row.ID] {
						return nil, &scenario.BadInputError{Err: fmt.Errorf("suite %s: cell %s would run twice (a scenario listed twice or a value repeated in vary): use --runs for repeats", s.Name, pc.Row.ID)}
					}
					seen[pc.Row.ID] = true
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
	sets []string, load func(string, []string) (*scenario.Scenario, error)) (Cell, error) {
	id := cellID(name, combo, version, run, runs)
	c := report.Row{ID: id, Scenario: name, Settings: combo, Kafka: version}
	s, reason, err := LoadOn(load, name, append(append([]string{}, sets...), SetsFor(combo)...), version)
	switch {
	case reason != "":
		c.Status, c.Reason, c.Verdict = report.CellNotApplicable, reason, report.Unchecked
		return Cell{Row: c}, nil
	case err != nil:
		return Cell{}, &scenario.BadInputError{Err: fmt.Errorf("cell %s: %w", id, err)}
	}
	c.Jira, c.Docs, c.Finding = s.Jira, s.Docs, s.FindingInfo()
	if needs := s.NeedsText(); needs != "" {
		// A bug kchaos cannot drive yet: shown, refused, not judged.
		c.Status, c.Reason, c.Verdict = report.CellNeeds, needs, report.Unchecked
		return Cell{Row: c}, nil
	}
	return Cell{Row: c, Scenario: s}, nil
}

// LoadOn loads scenario name with sets on Kafka version (cluster.kafka
// set last): the scenario; or, when it does not load there but does on
// its own release, why the version rules it out (NotApplicable); or the
// error. A suite's cell and a campaign's both ask it.
func LoadOn(load func(string, []string) (*scenario.Scenario, error), name string, sets []string, version string) (*scenario.Scenario, string, error) {
	s, err := load(name, append(slices.Clone(sets), "cluster.kafka="+version))
	if err == nil {
		return s, "", nil
	}
	// Load once more without the version: if the scenario is fine on its
	// own, the version rules it out (ELR before 4.0).
	if base, berr := load(name, sets); berr == nil {
		if reason := notApplicable(base, version); reason != "" {
			return nil, reason, nil
		}
	}
	return nil, "", err
}

// notApplicable says why Kafka version rules out the scenario's settings,
// or "" (a suite's cell not-applicable; a campaign leaves such a cell out). The cluster's own validation is the rule (ELR, transaction.version
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
	// A schedule whose steps need another release (an upgrade to one not
	// newer than this) says so through the fault's own check.
	view := s.View()
	view.Kafka = version
	if errs := s.Nemesis.CheckScenario(view); len(errs) > 0 {
		return errs[0].Error()
	}
	return ""
}

// cellID is "scenario/settings/version" with settings "k=v,k=v" sorted by
// key ("-" when nothing varies) and ",run=N" when a cell runs more than once.
func cellID(name string, combo map[string]string, version string, run, runs int) string {
	settings := settingsText(combo, ",")
	if runs > 1 {
		settings = strings.TrimPrefix(settings+fmt.Sprintf(",run=%d", run), ",")
	}
	if settings == "" {
		settings = "-"
	}
	return name + "/" + settings + "/" + version
}

// SuitePlan plans a suite (PlanSuite) into a batch written to
// store/suite-<name>/<timestamp>/: each cell judged against its
// scenario's expectation, and with a baseline the cells whose status
// changed. Bad input (a cell, an unreadable baseline) is an error before
// any cluster starts.
func SuitePlan(s *Suite, opts SuiteOptions) (*Plan, error) {
	cells, err := planSuite(s, opts)
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
	var clusters *Clusters // nil: a fresh cluster per cell
	if opts.ReuseClusters {
		clusters = NewClusters(true)
	}
	return &Plan{Cells: cells, What: "suite name", Name: s.Name, Prefix: "suite-", Clusters: clusters,
		NotRun: report.CellUnjudged, Failed: report.CellUnjudged, Judge: judgeExpectation,
		Batch: func(rows []report.Row) report.Batch {
			f := report.SuiteFile{Name: s.Name, Cells: rows}
			if base != nil {
				f.Baseline, f.Changes = opts.Baseline, report.Compare(base.Cells, rows)
			}
			return report.SuiteBatch(f)
		}}, nil
}

// judgeExpectation holds a run against its scenario's expectation.
func judgeExpectation(c Cell, row *report.Row, ran Ran) {
	m := ran.Metrics
	row.Summary = summaryText(m)
	status, results := expect.Judge(c.Scenario.Checks(), c.Scenario.Settings(), m)
	for _, r := range results {
		row.Checks = append(row.Checks, r.String())
	}
	if p := unjudgedWhy(ran.Result); p != "" {
		// The story may not have happened, or Kafka acknowledged nothing
		// of it: its expectation cannot be held against what did.
		row.Status, row.Reason = report.CellUnjudged, p
		return
	}
	row.Status = string(status)
	switch status {
	case expect.Unjudged:
		row.Reason = "a check's metric was not measured"
		if ran.MetricsErr != nil {
			row.Reason += ": " + ran.MetricsErr.Error()
		}
	case expect.NoExpectation:
		row.Reason = fmt.Sprintf("no outcome check applies to settings %v", c.Scenario.Settings())
	}
}

// summaryText is the measured anomalies and errors in one line, nonzero
// ones only: "lost-write 2518, offset-reuse 2518, acked 9120, offline 20.5 s".
func summaryText(m expect.Metrics) string {
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
