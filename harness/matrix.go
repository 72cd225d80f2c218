package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// Variation is one --vary: a setting and the values to try.
type Variation struct {
	Key    string
	Values []string
}

// parseVary parses "key=v1,v2,...".
func parseVary(s string) (Variation, error) {
	key, vals, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Variation{}, fmt.Errorf("--vary %q: want key=value,value (e.g. unclean=false,true)", s)
	}
	var v Variation
	v.Key = key
	for _, x := range strings.Split(vals, ",") {
		if x = strings.TrimSpace(x); x != "" {
			v.Values = append(v.Values, x)
		}
	}
	if len(v.Values) == 0 {
		return Variation{}, fmt.Errorf("--vary %q: no values", s)
	}
	return v, nil
}

// Combinations is the cartesian product of the variations, in order (the
// last variation changes fastest).
func Combinations(vs []Variation) []map[string]string {
	out := []map[string]string{{}}
	for _, v := range vs {
		var next []map[string]string
		for _, combo := range out {
			for _, val := range v.Values {
				c := make(map[string]string, len(combo)+1)
				for k, x := range combo {
					c[k] = x
				}
				c[v.Key] = val
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// SetsFor turns one combination into --set overrides.
func SetsFor(combo map[string]string) []string {
	keys := slices.Sorted(maps.Keys(combo))
	var sets []string
	for _, k := range keys {
		val := combo[k]
		if k == "kafka" {
			val = resolveVersion(val)
		}
		paths, ok := scenario.SettingPaths[k]
		if !ok {
			paths = []string{k}
		}
		for _, p := range paths {
			sets = append(sets, p+"="+val)
		}
	}
	return sets
}

// resolveVersion turns "4.1.x" (or "latest") into the release kchaos knows
// (cluster.Releases); anything else passes through, for Load to judge.
func resolveVersion(v string) string {
	if r, err := cluster.ResolveVersion(v); err == nil {
		return r
	}
	return v
}

// planMatrix checks every variation and combination before any cluster
// starts. Bad input is an error naming every bad --vary (a key given
// twice, or a key or value that makes the scenario fail on its own, such
// as acks=2 or an unknown path): the CLI exits 254 at once. A combination
// whose settings are each valid but conflict (ELR on with Kafka 3.9: each
// setting alone is fine, together Kafka rules them out) becomes a Cell
// that does not run, with its Err.
func planMatrix(vs []Variation, load func(sets []string) (*scenario.Scenario, error)) ([]Cell, error) {
	var errs []error
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.Key] {
			errs = append(errs, fmt.Errorf("--vary %s: the key is given twice", v.Key))
			continue
		}
		seen[v.Key] = true
		// Versions as the grammar has them, and no two that name one
		// release (latest and 4.4.0): one row twice.
		if v.Key == "kafka" {
			if _, err := cluster.ResolveVersions(v.Values, func(int) string { return "--vary kafka" }); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		values := map[string]bool{}
		for _, x := range v.Values {
			if values[x] {
				errs = append(errs, fmt.Errorf("--vary %s: value %s given twice (use --runs for repeats)", v.Key, x))
			}
			values[x] = true
			if _, err := load(SetsFor(map[string]string{v.Key: x})); err != nil {
				errs = append(errs, fmt.Errorf("--vary %s=%s: %w", v.Key, x, err))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var cells []Cell
	for _, combo := range Combinations(vs) {
		s, err := load(SetsFor(combo))
		c := Cell{Row: report.Row{Settings: combo}, Scenario: s, Err: err}
		if err != nil {
			c.Row.Status, c.Row.Verdict, c.Row.Reason = string(report.Unchecked), report.Unchecked, err.Error()
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// NewMatrixPlan plans the matrix command: scenario (loaded by load with
// sets) under every combination of the varies ("key=v1,v2") and, when
// kafkas lists versions, each of them (the first column), runs times
// each. Every key, value and combination is checked before the first
// cluster starts: any error is bad input.
func NewMatrixPlan(varies []string, kafkas string, runs int, load func(sets []string) (*scenario.Scenario, error)) (*Plan, error) {
	var vs []Variation
	for _, v := range varies {
		pv, err := parseVary(v)
		if err != nil {
			return nil, err
		}
		vs = append(vs, pv)
	}
	if kafkas != "" {
		pv, err := parseVary("kafka=" + kafkas)
		if err != nil {
			return nil, err
		}
		if _, err := cluster.ResolveVersions(pv.Values, func(int) string { return "--kafka" }); err != nil {
			return nil, err
		}
		vs = append([]Variation{pv}, vs...)
	}
	if len(vs) == 0 {
		return nil, errors.New("nothing to vary: give --vary key=v1,v2 or --kafka v1,v2")
	}
	if runs < 1 {
		return nil, fmt.Errorf("--runs %d: want at least 1", runs)
	}
	base, err := load(nil)
	if err != nil {
		return nil, err
	}
	cells, err := planMatrix(vs, load)
	if err != nil {
		return nil, err
	}
	return matrixPlan(base.Name, cells, runs), nil
}

// matrixPlan is the matrix of name over cells (from PlanMatrix), each run
// runs times ("run=N" among its settings when more than once), written to
// store/matrix-<name>/<timestamp>/ (name checked like any store folder's).
// A row's status is its run's verdict, unknown when the run failed.
func matrixPlan(name string, cells []Cell, runs int) *Plan {
	runs = max(runs, 1)
	p := &Plan{What: "name", Name: name, Prefix: "matrix-",
		NotRun: string(report.Unknown), Failed: string(report.Unknown),
		Batch: func(rows []report.Row) report.Batch { return report.MatrixBatch(name, rows) },
		Judge: judgeVerdict}
	for _, c := range cells {
		for run := 1; run <= runs; run++ {
			varied := maps.Clone(c.Row.Settings)
			if runs > 1 {
				varied["run"] = fmt.Sprint(run)
			}
			rc := c
			rc.Row.Settings, rc.Row.ID, rc.Row.Scenario = varied, settingsText(varied, " "), name
			p.Cells = append(p.Cells, rc)
		}
	}
	return p
}

// judgeVerdict: a matrix shows the checker's verdict, and why the run is
// not a clean measurement.
func judgeVerdict(_ Cell, row *report.Row, ran Ran) {
	row.Status = string(row.Verdict)
	switch {
	case ran.MetricsErr != nil:
		row.Reason = ran.MetricsErr.Error()
	case ran.Result.Interrupted != "":
		row.Reason = ran.Result.Interrupted
	default:
		row.Reason = unjudgedWhy(ran.Result)
	}
}

// settingsText is "k=v" sorted by key, joined by sep.
func settingsText(m map[string]string, sep string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+m[k])
	}
	return strings.Join(kv, sep)
}
