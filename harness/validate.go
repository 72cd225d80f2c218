package harness

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/harness/scenario"
)

// Validate checks a scenario or a suite (a built-in's name or a file;
// a file holding `entries:` is a suite) exactly as run, suite and matrix
// would before their first cluster, and describes what would run: a
// scenario as run (every default filled, YAML), a suite as its cells.
// Nothing is started. Problems are *scenario.BadInputError (exit 254).
func Validate(nameOrFile string, opts SuiteOptions) (string, error) {
	load := opts.Load
	if load == nil {
		load = scenario.Load
	}
	if !isSuite(nameOrFile) {
		s, err := load(nameOrFile, opts.Sets)
		if err != nil {
			return "", err
		}
		b, err := s.Marshal()
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("# %s: valid scenario %s; it would run as:\n%s", nameOrFile, s.Name, b), nil
	}
	su, err := LoadSuite(nameOrFile)
	if err != nil {
		return "", err
	}
	cells, err := planSuite(su, opts)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: valid suite %s; %d cells:\n", nameOrFile, su.Name, len(cells))
	for _, c := range cells {
		if c.Scenario == nil {
			fmt.Fprintf(&b, "%s  (%s: %s)\n", c.Row.ID, c.Row.Status, c.Row.Reason)
			continue
		}
		fmt.Fprintln(&b, c.Row.ID)
	}
	return b.String(), nil
}

// isSuite: a built-in suite's name, or a file whose top level has
// `entries:` (a scenario never does).
func isSuite(nameOrFile string) bool {
	if slices.Contains(BuiltinSuites(), nameOrFile) {
		if _, ok := scenario.BuiltinYAML(nameOrFile); !ok {
			return true
		}
	}
	// Bounded like any input: a file too large or too deep is the
	// scenario loader's to refuse, naming it.
	b, err := scenario.ReadInput(nameOrFile, "scenario")
	if err != nil {
		return false
	}
	doc, err := scenario.ParseYAML(b, nameOrFile)
	if err != nil {
		return false
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "entries" {
			return true
		}
	}
	return false
}
