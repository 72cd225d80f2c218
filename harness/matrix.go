package harness

import (
	"context"
	"errors"
	"fmt"
	"sort"
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

// ParseVary parses "key=v1,v2,...".
func ParseVary(s string) (Variation, error) {
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
	keys := make([]string, 0, len(combo))
	for k := range combo {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sets []string
	for _, k := range keys {
		val := combo[k]
		if k == "kafka" {
			val = ResolveVersion(val)
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

// ResolveVersion turns "4.1.x" (or "latest") into the release kchaos knows
// (cluster.Releases); anything else passes through, for Load to judge.
func ResolveVersion(v string) string {
	if r, err := cluster.ResolveVersion(v); err == nil {
		return r
	}
	return v
}

// Cell is one combination of a matrix, loaded: its scenario, or the
// reason the combination cannot run (a row with its error, such as ELR on
// with Kafka 3.9: each setting alone is fine, together Kafka rules them
// out).
type Cell struct {
	Combo    map[string]string
	Scenario *scenario.Scenario
	Err      error
}

// PlanMatrix checks every variation and combination before any cluster
// starts. Bad input is an error naming every bad --vary (a key given
// twice, or a key or value that makes the scenario fail on its own, such
// as acks=2 or an unknown path): the CLI exits 254 at once. A combination
// whose settings are each valid but conflict becomes a Cell with Err.
func PlanMatrix(vs []Variation, load func(sets []string) (*scenario.Scenario, error)) ([]Cell, error) {
	var errs []error
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.Key] {
			errs = append(errs, fmt.Errorf("--vary %s: the key is given twice", v.Key))
			continue
		}
		seen[v.Key] = true
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
		cells = append(cells, Cell{Combo: combo, Scenario: s, Err: err})
	}
	return cells, nil
}

// MatrixOptions tune a matrix.
type MatrixOptions struct {
	Options
	Runs int // runs per combination (default 1)
	// OnRun is told about each run as it ends.
	OnRun func(combo map[string]string, out *Outcome, err error)
}

// RunMatrix runs every cell on a fresh cluster (Runs times each) and
// writes matrix.md, matrix.html and matrix.json into
// store/matrix-<name>/<timestamp>/ (name: the scenario's name, checked
// like any store folder's). A cell that could not be loaded or
// whose run fails gets a row with its error. When ctx ends (a signal), the
// run under way is interrupted (healed, torn down, checked: see Run), its
// row written, and RunMatrix returns ctx's error.
func RunMatrix(ctx context.Context, name string, cells []Cell, opts MatrixOptions) (string, []report.Row, error) {
	runs := max(opts.Runs, 1)
	dir, err := makeStoreDir(opts.Store, "name", name, "matrix-")
	if err != nil {
		return "", nil, err
	}
	var rows []report.Row
	for _, cell := range cells {
		for run := 1; run <= runs; run++ {
			if ctx.Err() != nil {
				return dir, rows, ctx.Err()
			}
			varied := map[string]string{}
			for k, v := range cell.Combo {
				varied[k] = v
			}
			if runs > 1 {
				varied["run"] = fmt.Sprint(run)
			}
			row := runOne(ctx, cell, varied, opts)
			rows = append(rows, row)
			if err := report.WriteMatrix(dir, rows); err != nil {
				return dir, rows, err
			}
		}
	}
	return dir, rows, ctx.Err()
}

func runOne(ctx context.Context, cell Cell, varied map[string]string, opts MatrixOptions) report.Row {
	if cell.Err != nil {
		if opts.OnRun != nil {
			opts.OnRun(cell.Combo, nil, cell.Err)
		}
		return report.Row{Config: varied, Error: cell.Err.Error()}
	}
	// Each run gets its own copy: Run fills the seed in.
	s := *cell.Scenario
	out, err := Run(ctx, &s, opts.Options)
	if opts.OnRun != nil {
		opts.OnRun(cell.Combo, out, err)
	}
	if out == nil {
		return report.Row{Config: varied, Error: err.Error()}
	}
	row, rerr := report.RowFromRun(out.Dir, varied)
	switch {
	case err != nil:
		row.Error = err.Error()
	case rerr != nil:
		row.Error = rerr.Error()
	case out.Interrupted != "":
		row.Error = out.Interrupted
	}
	if out.NemesisErr != nil && row.Error == "" {
		row.Error = "nemesis schedule: " + out.NemesisErr.Error()
	}
	return row
}
