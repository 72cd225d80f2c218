package explore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/bounds"
)

// Campaign is a campaign file (issue 40, item 4): explorations of several
// scenarios on several Kafka versions within one time budget, their
// findings counted by signature.
//
//	name: nightly
//	scenarios:                  # built-in names or files, with sets
//	  - weak-leader.yaml        # a file: relative to the campaign file
//	  - {scenario: s2, set: [topic.configs.min.insync.replicas=2, cluster.elr=on]}
//	suites: [seeds]             # optional: every runnable cell's scenario and vary settings
//	versions: [4.4.x]           # cluster.ResolveVersion's forms
//	budget: 6h                  # the whole campaign (per shard)
//	runs_per_cell: 50           # optional cap
//	strategy: random            # random|guided|live
//	seed: 7
//	bisect: true                # optional: bisect each new signature over versions
type Campaign struct {
	Name        string             `yaml:"name"`
	Scenarios   []CampaignScenario `yaml:"scenarios,omitempty"`
	Suites      []string           `yaml:"suites,omitempty"`
	Versions    []string           `yaml:"versions"`
	Budget      string             `yaml:"budget"`
	RunsPerCell int                `yaml:"runs_per_cell,omitempty"`
	Strategy    string             `yaml:"strategy,omitempty"`
	Seed        int64              `yaml:"seed,omitempty"`
	Bisect      bool               `yaml:"bisect,omitempty"`

	// budget is Budget parsed; versions are Versions resolved.
	budget   time.Duration
	versions []string
}

// CampaignScenario is one scenario entry: a name or file, and --set
// style settings ("path=value") applied to it.
type CampaignScenario struct {
	Scenario string   `yaml:"scenario"`
	Set      []string `yaml:"set,omitempty"`
	line     int
	// written is Scenario as the file wrote it (a cell's ID), before a
	// relative file was joined to the campaign file's folder.
	written string
}

// UnmarshalYAML takes "NAME" or {scenario: NAME, set: [...]}; another
// key is refused with its line, as the strict decoder refuses one.
func (c *CampaignScenario) UnmarshalYAML(n *yaml.Node) error {
	c.line = n.Line
	switch n.Kind {
	case yaml.ScalarNode:
		c.Scenario = n.Value
		return nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Value != "scenario" && k.Value != "set" {
				return fmt.Errorf("line %d: field %s not found (a scenario entry has scenario and set)", k.Line, k.Value)
			}
		}
		type plain CampaignScenario
		return n.Decode((*plain)(c))
	}
	return fmt.Errorf("line %d: a scenario entry is a name or {scenario: NAME, set: [...]}", n.Line)
}

// budgetDuration is the campaign's time budget (parsed by LoadCampaign).
func (c *Campaign) budgetDuration() time.Duration { return c.budget }

// resolvedVersions are Versions as cluster.ResolveVersion resolves them.
func (c *Campaign) resolvedVersions() []string { return c.versions }

// LoadCampaign reads a campaign file: bounded (bounds.InputFile, the YAML
// node bound), strictly decoded (an unknown field is refused with its
// line), then validated, every problem naming its field and line. Every
// error is a *scenario.BadInputError (exit 254).
func LoadCampaign(file string) (*Campaign, error) {
	bad := func(err error) error {
		return &scenario.BadInputError{Err: fmt.Errorf("%s: %w", bounds.Cut(file), err)}
	}
	data, err := scenario.ReadInput(file, "campaign")
	if err != nil {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("campaign %q: %v", bounds.Cut(file), err)}
	}
	doc, err := scenario.ParseYAML(data, file)
	if err != nil {
		return nil, &scenario.BadInputError{Err: err}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Campaign
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		// In the user's words: no "yaml:" prefix, no Go type.
		msg := inTypeRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
		return nil, bad(errors.New(msg))
	}
	if err := c.validate(doc.Content[0]); err != nil {
		return nil, bad(err)
	}
	// A scenario file is relative to the campaign file's folder, as a
	// CI job checks the campaign out beside its scenarios and runs it
	// from anywhere; a built-in name is a name.
	for i, s := range c.Scenarios {
		if _, builtin := scenario.BuiltinYAML(s.Scenario); !builtin && !filepath.IsAbs(s.Scenario) {
			c.Scenarios[i].written = s.Scenario
			c.Scenarios[i].Scenario = filepath.Join(filepath.Dir(file), s.Scenario)
		}
	}
	return &c, nil
}

// validate checks every field, each problem "line N: field: why".
func (c *Campaign) validate(top *yaml.Node) error {
	var errs []error
	where := func(field string) string {
		if l := lineOf(top, field); l > 0 {
			return fmt.Sprintf("line %d: ", l)
		}
		return "" // absent: the field's name says it
	}
	at := func(field string, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s%s: %s", where(field), field, fmt.Sprintf(format, a...)))
	}
	if err := scenario.CheckName("name", c.Name); err != nil {
		errs = append(errs, fmt.Errorf("%s%w", where("name"), err))
	}
	if len(c.Scenarios) == 0 && len(c.Suites) == 0 {
		at("scenarios", "none, and no suites: give at least one")
	}
	for i, s := range c.Scenarios {
		if strings.TrimSpace(s.Scenario) == "" {
			errs = append(errs, fmt.Errorf("line %d: scenarios[%d].scenario: missing", s.line, i))
		}
	}
	for i, s := range c.Suites {
		if strings.TrimSpace(s) == "" {
			at("suites", "[%d]: blank", i)
		}
	}
	if len(c.Versions) == 0 {
		at("versions", "none: give at least one (4.4.x, latest, 4.1.2)")
	}
	for i, v := range c.Versions {
		r, err := cluster.ResolveVersion(v)
		if err != nil {
			at("versions", "[%d]: %v", i, err)
			continue
		}
		if slices.Contains(c.versions, r) {
			at("versions", "[%d]: %s twice (resolves to %s)", i, v, r)
			continue
		}
		c.versions = append(c.versions, r)
	}
	switch d, err := time.ParseDuration(c.Budget); {
	case c.Budget == "":
		at("budget", "missing: the campaign's time, e.g. 6h")
	case err != nil:
		at("budget", "%q: not a duration (e.g. 90m, 6h)", bounds.Cut(c.Budget))
	case d <= 0 || d > bounds.Duration:
		at("budget", "%s: want more than 0 and at most %s (a week)", d, bounds.Duration)
	default:
		c.budget = d
	}
	// A written 0 would read as the field left out (no cap).
	if c.RunsPerCell < 0 || c.RunsPerCell == 0 && lineOf(top, "runs_per_cell") > 0 {
		at("runs_per_cell", "%d: want at least 1 (or leave it out: no cap)", c.RunsPerCell)
	}
	if _, err := ParseStrategy(c.Strategy); err != nil && c.Strategy != "" {
		at("strategy", "%v", err)
	}
	return errors.Join(errs...)
}

// lineOf is the line of top's key field (0 when absent: then the field's
// path alone names it).
func lineOf(top *yaml.Node, field string) int {
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == field {
			return top.Content[i].Line
		}
	}
	return 0
}

// inTypeRE is the Go type yaml.v3 names in a decoding error.
var inTypeRE = regexp.MustCompile(` in type [\w.*\[\]]+`)

// CampaignCell is one (scenario, version) cell of a campaign.
type CampaignCell struct {
	// ID is "scenario[/set,...]/version".
	ID       string   `json:"id"`
	Scenario string   `json:"scenario"`
	Sets     []string `json:"sets,omitempty"`
	Kafka    string   `json:"kafka"`
}

// cells are the campaign's cells in order: each scenario entry, then
// each runnable cell of each suite (its scenario and vary settings; a
// cell that needs what kchaos lacks is left out), each on every version.
// A cell named twice is run once.
func (c *Campaign) cells() ([]CampaignCell, error) {
	type entry struct {
		name, written string
		sets          []string
		// label is the sets as the cell's ID spells them: a suite's
		// vary settings by the suite's names (elr=on).
		label string
	}
	var entries []entry
	for _, s := range c.Scenarios {
		written := s.written
		if written == "" {
			written = s.Scenario
		}
		entries = append(entries, entry{s.Scenario, written, s.Set, strings.Join(s.Set, ",")})
	}
	for _, name := range c.Suites {
		suite, err := harness.LoadSuite(name)
		if err != nil {
			return nil, err
		}
		for _, e := range suite.Entries {
			var vs []harness.Variation
			for _, k := range slices.Sorted(maps.Keys(e.Vary)) {
				vs = append(vs, harness.Variation{Key: k, Values: e.Vary[k]})
			}
			for _, combo := range harness.Combinations(vs) {
				sets := harness.SetsFor(combo)
				// A cell kchaos cannot drive yet (finding.needs) has no
				// steps and no mix worth exploring: left out.
				if s, err := scenario.Load(e.Scenario, sets); err == nil && s.NeedsText() != "" {
					continue
				}
				var kv []string
				for _, k := range slices.Sorted(maps.Keys(combo)) {
					kv = append(kv, k+"="+combo[k])
				}
				entries = append(entries, entry{e.Scenario, e.Scenario, sets, strings.Join(kv, ",")})
			}
		}
	}
	var out []CampaignCell
	seen := map[string]bool{}
	for _, e := range entries {
		for _, v := range c.versions {
			id := e.written + "/" + orDash(e.label) + "/" + v
			if seen[id] {
				continue
			}
			seen[id] = true
			if notApplicable(e.name, e.sets, v) {
				continue
			}
			out = append(out, CampaignCell{ID: id, Scenario: e.name, Sets: e.sets, Kafka: v})
		}
	}
	return out, nil
}

// notApplicable reports whether version rules the scenario out as a suite
// would mark its cell not applicable (harness.LoadOn: ELR before 4.0, an
// upgrade to a release not newer than the cell's): the campaign leaves
// such a cell out, as it leaves out a finding kchaos cannot drive. A
// scenario that does not load at all is left in: its cell's own
// validation names the problem.
func notApplicable(name string, sets []string, version string) bool {
	_, reason, _ := harness.LoadOn(scenario.Load, name, sets, version)
	return reason != ""
}

// share is a cell's share of the budget: at least an even split of the
// whole (budget / cells), so that a cell whose finding's shrink overran
// its share does not starve the cells after it, and more when the cells
// before left time unused (their runs capped, or stopped on failures):
// then what is left split evenly over the cells left.
func share(budget, left time.Duration, cells, cellsLeft int) time.Duration {
	if cells <= 0 || cellsLeft <= 0 || budget <= 0 {
		return 0
	}
	return max(budget/time.Duration(cells), left/time.Duration(cellsLeft))
}
