package harness

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/bounds"
)

// Suite is a named list of scenarios, each with the settings to vary, run
// on one or more Kafka versions.
//
//	name: seeds
//	kafka: [4.1.x, 4.4.x]     # optional (cluster.ResolveVersion's forms); --kafka overrides it
//	entries:
//	  - scenario: s9          # a built-in's name or a scenario file
//	    vary: {unclean: ["false", "true"]}
//	    runs: 3               # optional; at least this many runs per cell
type Suite struct {
	Name    string       `yaml:"name"`
	Kafka   []string     `yaml:"kafka,omitempty"`
	Entries []SuiteEntry `yaml:"entries"`
}

// SuiteEntry is one scenario of a suite and the settings it varies (the
// matrix's names, scenario.SettingPaths, or scenario paths).
type SuiteEntry struct {
	Scenario string              `yaml:"scenario"`
	Vary     map[string][]string `yaml:"vary,omitempty"`
	// Runs is the fewest runs each cell of the entry gets, whatever
	// --runs says (a larger --runs raises it): a regression cell whose
	// bug is a race needs several runs to give a reproduction rate, the
	// others one. Nil: --runs alone. A pointer, so that "runs: 0" is
	// refused rather than read as absent.
	Runs *int `yaml:"runs,omitempty"`
}

// DefaultRuns is the number of runs per cell when neither --runs nor the
// entry says.
const DefaultRuns = 1

// runs is how many runs each cell of the entry gets under --runs n (0:
// not given).
func (e SuiteEntry) runs(n int) int {
	n = max(n, DefaultRuns)
	if e.Runs != nil {
		n = max(n, *e.Runs)
	}
	return n
}

// variations is Vary in key order, so that cells come in a stable order.
func (e SuiteEntry) variations() []Variation {
	var vs []Variation
	for _, k := range slices.Sorted(maps.Keys(e.Vary)) {
		vs = append(vs, Variation{Key: k, Values: e.Vary[k]})
	}
	return vs
}

//go:embed suites/*.yaml
var builtinSuites embed.FS

// BuiltinSuites lists the names of the built-in suites.
func BuiltinSuites() []string {
	ents, _ := builtinSuites.ReadDir("suites")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// LoadSuite reads a built-in suite by name or a suite file. Problems are
// bad input (exit 254), all of them, each with its field path.
func LoadSuite(nameOrFile string) (*Suite, error) {
	data, err := builtinSuites.ReadFile("suites/" + nameOrFile + ".yaml")
	source := "suite " + nameOrFile
	if err != nil {
		data, err = scenario.ReadInput(nameOrFile, "suite")
		if err != nil {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("suite %q: neither a built-in (%s) nor a readable file: %v",
				bounds.Cut(nameOrFile), strings.Join(BuiltinSuites(), ", "), err)}
		}
		source = nameOrFile
	}
	// Bounded (size, nodes with aliases expanded) before decoding.
	if _, err := scenario.ParseYAML(data, source); err != nil {
		return nil, &scenario.BadInputError{Err: err}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Suite
	if err := dec.Decode(&s); err != nil {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("%s: %v", source, err)}
	}
	if err := s.validate(); err != nil {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("%s: %w", source, err)}
	}
	return &s, nil
}

func (s *Suite) validate() error {
	var errs []error
	if err := scenario.CheckName("name", s.Name); err != nil {
		errs = append(errs, err)
	}
	if _, err := cluster.ResolveVersions(s.Kafka, func(i int) string { return fmt.Sprintf("kafka[%d]", i) }); err != nil {
		errs = append(errs, err)
	}
	if len(s.Entries) == 0 {
		errs = append(errs, errors.New("entries: none"))
	}
	for i, e := range s.Entries {
		if strings.TrimSpace(e.Scenario) == "" {
			errs = append(errs, fmt.Errorf("entries[%d].scenario: missing", i))
		}
		if e.Runs != nil && *e.Runs < 1 {
			errs = append(errs, fmt.Errorf("entries[%d].runs: %d: want at least 1 (runs per cell of the entry)", i, *e.Runs))
		}
		for _, k := range slices.Sorted(maps.Keys(e.Vary)) {
			if len(e.Vary[k]) == 0 {
				errs = append(errs, fmt.Errorf("entries[%d].vary.%s: no values", i, k))
			}
		}
	}
	return errors.Join(errs...)
}
