package explore

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
)

// KnownCell is a findings-suite cell as a campaign matches findings
// against it: the anomaly classes its outcome checks name and its fault
// steps spelled as a signature spells them (ScenarioFaults).
type KnownCell struct {
	// ID is the scenario and its vary settings (s8/elr=on).
	ID       string   `json:"id"`
	Scenario string   `json:"scenario"`
	Jira     []string `json:"jira,omitempty"`
	Classes  []string `json:"classes"`
	Faults   []string `json:"faults"`
}

// Label is what a matching signature is labelled: the cell's JIRAs, or
// "<cell> (no JIRA)" for a known bug not reported yet (s13).
func (k KnownCell) Label() string {
	if len(k.Jira) > 0 {
		return strings.Join(k.Jira, ", ")
	}
	return k.ID + " (no JIRA)"
}

// matches is the rule, and all of it: the signature's class is one of
// the anomalies the cell's outcome checks name, and its fault kinds and
// coarse roles are exactly the cell's (as sets). The transition is not
// compared: a cell has no run to read one from. Exact sets, because a
// finding whose repro needed another fault is another sequence, and the
// JIRA the cell names describes the cell's sequence.
func (k KnownCell) matches(sig Signature) bool {
	return slices.Contains(k.Classes, sig.Class) && slices.Equal(k.Faults, sig.Faults)
}

// cellClasses are the anomaly classes a scenario's outcome checks name
// (lost-write for "lost-write > 0" and for "lost-write == 0" alike: a
// findings cell's checks are either the bug measured or the right
// behaviour, both about the anomaly the bug shows).
func cellClasses(s *scenario.Scenario) []string {
	var out []string
	for _, c := range s.Checks() {
		if slices.Contains(expect.Anomalies, c.Metric) {
			out = append(out, c.Metric)
		}
	}
	return sortedSet(out)
}

// knownCells are the cells of the built-in findings suite kchaos can run
// (cells that need what kchaos lacks are left out: they have no steps to
// match), each loaded with its vary settings.
func knownCells() ([]KnownCell, error) {
	suite, err := harness.LoadSuite("findings")
	if err != nil {
		return nil, err
	}
	var out []KnownCell
	for _, e := range suite.Entries {
		var vs []harness.Variation
		for _, k := range slices.Sorted(maps.Keys(e.Vary)) {
			vs = append(vs, harness.Variation{Key: k, Values: e.Vary[k]})
		}
		for _, combo := range harness.Combinations(vs) {
			s, err := scenario.Load(e.Scenario, harness.SetsFor(combo))
			if err != nil {
				return nil, fmt.Errorf("findings cell %s: %w", e.Scenario, err)
			}
			if s.NeedsText() != "" {
				continue
			}
			id := e.Scenario
			if len(combo) > 0 {
				var kv []string
				for _, k := range slices.Sorted(maps.Keys(combo)) {
					kv = append(kv, k+"="+combo[k])
				}
				id += "/" + strings.Join(kv, ",")
			}
			out = append(out, KnownCell{ID: id, Scenario: e.Scenario, Jira: s.Jira, Classes: cellClasses(s), Faults: scenarioFaults(s)})
		}
	}
	return out, nil
}

// label is the label of sig among known: the first matching cell's, or
// "new"; cell is that cell's ID ("" when new).
func label(sig Signature, known []KnownCell) (label, cell string) {
	for _, k := range known {
		if k.matches(sig) {
			return k.Label(), k.ID
		}
	}
	return "new", ""
}
