package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// Variation is one --vary: a setting and the values to try.
type Variation struct {
	Key    string
	Values []string
}

// varyAliases maps the matrix's short names to scenario paths. A key that
// is not an alias is taken as a scenario path (as --set takes it).
var varyAliases = map[string][]string{
	// unclean=false means never: also in the live set-config steps of a
	// story such as s2's, which switches it on while the partition is
	// offline.
	"unclean": {"topic.configs.unclean.leader.election.enable",
		"nemesis.steps[*].config.unclean.leader.election.enable"},
	"elr":  {"cluster.elr"},
	"acks": {"workload.acks"},
	// With ELR on, min.insync.replicas is a cluster-level setting the
	// controller enforces: set it on the topic, the brokers and the
	// controllers alike, so each row means one thing.
	"min.insync": {"topic.configs.min.insync.replicas", "cluster.broker_config.min.insync.replicas",
		"cluster.controller_config.min.insync.replicas"},
	"kafka":      {"cluster.kafka"},
	"idempotent": {"workload.idempotent"},
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
		paths, ok := varyAliases[k]
		if !ok {
			paths = []string{k}
		}
		for _, p := range paths {
			sets = append(sets, p+"="+val)
		}
	}
	return sets
}

// latestPatch resolves "4.1.x" to the newest patch release kchaos knows to
// build from Maven Central here.
var latestPatch = map[string]string{"3.9": "3.9.1", "4.0": "4.0.2", "4.1": "4.1.2"}

// ResolveVersion turns "4.1.x" into a release number; others pass through.
func ResolveVersion(v string) string {
	if strings.HasSuffix(v, ".x") {
		if p, ok := latestPatch[strings.TrimSuffix(v, ".x")]; ok {
			return p
		}
	}
	return v
}

// MatrixOptions tune a matrix.
type MatrixOptions struct {
	Options
	Runs int // runs per combination (default 1)
	// Load reads the scenario with extra sets (the CLI's flags applied).
	Load func(sets []string) (*scenario.Scenario, error)
	// OnRun is told about each run as it ends.
	OnRun func(combo map[string]string, out *Outcome, err error)
}

// RunMatrix runs every combination on a fresh cluster (Runs times each)
// and writes matrix.md, matrix.html and matrix.json into
// store/matrix-<name>/<timestamp>/. A combination that cannot be loaded
// (e.g. elr=on with Kafka 3.9) or whose run fails gets a row with its error.
func RunMatrix(ctx context.Context, name string, vs []Variation, opts MatrixOptions) (string, []report.Row, error) {
	runs := max(opts.Runs, 1)
	store := opts.Store
	if store == "" {
		store = DefaultStore
	}
	dir := filepath.Join(store, "matrix-"+name, time.Now().UTC().Format("20060102T150405Z"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	var rows []report.Row
	for _, combo := range Combinations(vs) {
		for run := 1; run <= runs; run++ {
			if ctx.Err() != nil {
				return dir, rows, ctx.Err()
			}
			varied := map[string]string{}
			for k, v := range combo {
				varied[k] = v
			}
			if runs > 1 {
				varied["run"] = fmt.Sprint(run)
			}
			row := runOne(ctx, combo, varied, opts)
			rows = append(rows, row)
			if err := report.WriteMatrix(dir, rows); err != nil {
				return dir, rows, err
			}
		}
	}
	return dir, rows, nil
}

func runOne(ctx context.Context, combo, varied map[string]string, opts MatrixOptions) report.Row {
	s, err := opts.Load(SetsFor(combo))
	if err != nil {
		if opts.OnRun != nil {
			opts.OnRun(combo, nil, err)
		}
		return report.Row{Config: varied, Error: err.Error()}
	}
	out, err := Run(ctx, s, opts.Options)
	if opts.OnRun != nil {
		opts.OnRun(combo, out, err)
	}
	if out == nil {
		return report.Row{Config: varied, Error: err.Error()}
	}
	row, rerr := report.RowFromRun(out.Dir, varied)
	if err != nil {
		row.Error = err.Error()
	} else if rerr != nil {
		row.Error = rerr.Error()
	}
	if out.NemesisErr != nil && row.Error == "" {
		row.Error = "nemesis schedule: " + out.NemesisErr.Error()
	}
	return row
}
