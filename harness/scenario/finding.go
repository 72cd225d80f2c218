package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// FindingSpec is a scenario's finding: status and steps in words, both
// required once the block is there, and what kchaos still lacks to drive
// the bug (needs), if anything.
//
//	finding:
//	  status: "KAFKA-20732: fixed in 4.4.0 and 4.3.2 (apache/kafka#22661)"
//	  steps: "Tiered storage on; ...; restart the leader three times."
//	  needs: [streams-group]
type FindingSpec struct {
	// Status is the JIRA's own status as Kafka's tracker and source show
	// it, dated (resolved, fix versions, open backports), or that no JIRA
	// describes the bug.
	Status string `yaml:"status"`
	// Steps is the fewest steps that show the bug, in words.
	Steps string `yaml:"steps"`
	// needs names what kchaos lacks to drive the bug, each from Needs. A
	// bug worth a cell is written down when it is found, with its JIRA,
	// links and steps, even when kchaos cannot drive it yet; a suite then
	// shows the cell refused with "needs ..." (a skipped junit testcase,
	// not judged), never runs it as a story that only looks like the bug
	// and never leaves it out silently.
	Needs []string `yaml:"needs,omitempty"`
}

// needs is every need a finding may name, each with the words a suite's
// refusal uses ("needs " + words). Written once: a new capability that
// lands takes its need out of here, and the validation then names every
// cell that still claims it.
var needs = map[string]string{
	// Landed, and so out of here: coordinator-state (the group-final
	// read-back, 2026-12-05; k20845 runs since 2026-12-06) and
	// commit-without-leader-epoch (each commit's leader_epochs, k20507).
	"fenced-leader-metric": "a metric that tells a partition whose leader is a fenced broker (the last known " +
		"leader elected while still down, KAFKA-19522) from a partition without a leader",
	"streams-group": "a Kafka Streams workload: a streams group (KIP-1071) whose members' tasks and state " +
		"stores the history records",
}

// FindingInfo is the finding as run.json and the report carry it (nil
// when the scenario has none).
func (s *Scenario) FindingInfo() *histories.Finding {
	if s.Finding == nil {
		return nil
	}
	return &histories.Finding{Status: oneLine(s.Finding.Status), Steps: oneLine(s.Finding.Steps),
		Needs: slices.Clone(s.Finding.Needs)}
}

// NeedsText is why the scenario cannot run yet, "needs A; B" in the
// words of Needs, or "" when it lacks nothing.
func (s *Scenario) NeedsText() string {
	if s.Finding == nil || len(s.Finding.Needs) == 0 {
		return ""
	}
	var out []string
	for _, n := range s.Finding.Needs {
		out = append(out, needs[n]+" ("+n+")")
	}
	return "needs " + strings.Join(out, "; ")
}

// oneLine joins a YAML block's lines with single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// check says what a finding lacks, each naming its field; a nil finding
// (the scenario has none) lacks nothing.
func (f *FindingSpec) check() []error {
	if f == nil {
		return nil
	}
	var errs []error
	if strings.TrimSpace(f.Status) == "" {
		errs = append(errs, errors.New("finding.status: missing: the JIRA's own status (resolved, fix versions), or that no JIRA describes the bug"))
	}
	if strings.TrimSpace(f.Steps) == "" {
		errs = append(errs, errors.New("finding.steps: missing: the minimal steps that show the bug, in words"))
	}
	seen := map[string]bool{}
	for i, n := range f.Needs {
		switch {
		case needs[n] == "":
			errs = append(errs, fmt.Errorf("finding.needs[%d]: unknown need %q: want one of %s", i, n,
				strings.Join(slices.Sorted(maps.Keys(needs)), ", ")))
		case seen[n]:
			errs = append(errs, fmt.Errorf("finding.needs[%d]: %q listed twice", i, n))
		}
		seen[n] = true
	}
	return errs
}
