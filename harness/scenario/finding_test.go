package scenario

import (
	"errors"
	"strings"
	"testing"
)

// TestFindingNeeds: a finding's needs come from the one vocabulary
// (Needs); an unknown or repeated need is bad input naming its index, and
// a scenario that needs something says so in the words a suite's refusal
// uses.
func TestFindingNeeds(t *testing.T) {
	const base = "name: x\nfinding:\n  status: open\n  steps: kill the leader\n"
	for _, tc := range []struct {
		name, yaml string
		bad        string // the error's substring, "" for valid
		needs      string // NeedsText's substring when valid
	}{
		{"no needs", base, "", ""},
		{"one need", base + "  needs: [streams-group]\n", "", "needs a Kafka Streams workload"},
		{"two needs", base + "  needs: [fenced-leader-metric, streams-group]\n", "",
			"(fenced-leader-metric); a Kafka Streams workload"},
		{"unknown need", base + "  needs: [streams-group, a-time-machine]\n", `finding.needs[1]: unknown need "a-time-machine": want one of`, ""},
		{"a need that landed", base + "  needs: [coordinator-state]\n", `finding.needs[0]: unknown need "coordinator-state"`, ""},
		{"repeated need", base + "  needs: [streams-group, streams-group]\n", `finding.needs[1]: "streams-group" listed twice`, ""},
		{"not a list", base + "  needs: streams-group\n", "needs", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadText(t, tc.yaml)
			if tc.bad != "" {
				var bad *BadInputError
				if err == nil || !strings.Contains(err.Error(), tc.bad) || !errors.As(err, &bad) {
					t.Fatalf("got %v, want bad input (exit 254) containing %q", err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.NeedsText()
			if (tc.needs == "") != (got == "") || !strings.Contains(got, tc.needs) {
				t.Errorf("NeedsText = %q, want %q", got, tc.needs)
			}
			if tc.needs != "" && len(s.FindingInfo().Needs) == 0 {
				t.Errorf("FindingInfo lacks the needs: %+v", s.FindingInfo())
			}
		})
	}
}

// TestNeedsWords: every need has words a refusal can print, naming what
// kchaos lacks.
func TestNeedsWords(t *testing.T) {
	for name, words := range needs {
		if len(words) < 20 || strings.ContainsAny(name, " _") {
			t.Errorf("need %q: words %q: want a kebab-case name and what kchaos lacks in words", name, words)
		}
	}
}
