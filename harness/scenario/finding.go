package scenario

import (
	"errors"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// FindingSpec is a scenario's finding: both fields in words, both
// required once the block is there.
//
//	finding:
//	  status: "KAFKA-20732: fixed in 4.4.0 and 4.3.2 (apache/kafka#22661)"
//	  steps: "Tiered storage on; ...; restart the leader three times."
type FindingSpec struct {
	// Status is the JIRA's own status as Kafka's tracker and source show
	// it, dated (resolved, fix versions, open backports), or that no JIRA
	// describes the bug.
	Status string `yaml:"status"`
	// Steps is the fewest steps that show the bug, in words.
	Steps string `yaml:"steps"`
}

// FindingInfo is the finding as run.json and the report carry it (nil
// when the scenario has none).
func (s *Scenario) FindingInfo() *histories.Finding {
	if s.Finding == nil {
		return nil
	}
	return &histories.Finding{Status: oneLine(s.Finding.Status), Steps: oneLine(s.Finding.Steps)}
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
	return errs
}
