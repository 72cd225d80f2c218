package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestFindingsSection: the suite page's Findings section groups a
// regression scenario's cells by settings over versions and runs, and
// says per version how many judged runs were invalid (the reproduction
// rate), where the expectation held, the JIRA's status and the steps.
func TestFindingsSection(t *testing.T) {
	f := &histories.Finding{Status: "fixed in 4.4.0 and 4.3.2 (apache/kafka#22661).", Steps: "restart the leader three times"}
	cell := func(v, status string, verdict RunVerdict, lost int, other map[string]int) Row {
		return Row{ID: "r1/run/" + v, Scenario: "r1", Kafka: v, Status: status, Jira: []string{"KAFKA-20732"}, Finding: f,
			Measure: Measure{Verdict: verdict, Lost: lost, Other: other}}
	}
	jump := map[string]int{"log-start-jump": 1}
	for _, tc := range []struct {
		name  string
		cells []Row
		want  []string // in suite.md
		none  []string // not in suite.md
	}{
		{"red on one version, green on another",
			[]Row{
				cell("4.3.1", CellDiffer, Invalid, 0, jump), cell("4.3.1", CellMatch, Valid, 0, nil), cell("4.3.1", CellDiffer, Invalid, 3, jump),
				cell("4.4.0", CellMatch, Valid, 0, nil), cell("4.4.0", CellMatch, Valid, 0, nil), cell("4.4.0", CellMatch, Valid, 0, nil),
			},
			[]string{
				"## Findings",
				"**r1 (KAFKA-20732)**. Runs invalid (the checker's verdict) on 4.3.1: 2 of 3 runs (log-start-jump, lost-write).",
				"Every judged run valid on 4.4.0: 0 of 3 runs.",
				"Expectation held on 4.3.1 1 of 3; 4.4.0 3 of 3. Expectation differed on 4.3.1 2 of 3.",
				"JIRA status: fixed in 4.4.0 and 4.3.2 (apache/kafka#22661). Minimal steps: restart the leader three times",
			},
			[]string{"Not applicable", "Not judged"}},
		{"not applicable and not judged versions",
			[]Row{
				{ID: "s13/-/3.9.2", Scenario: "s13", Kafka: "3.9.2", Status: CellNotApplicable, Finding: f, Measure: Measure{Verdict: Unchecked}},
				{ID: "s13/-/4.4.0", Scenario: "s13", Kafka: "4.4.0", Status: CellUnjudged, NotRun: true, Finding: f, Measure: Measure{Verdict: Unchecked}},
			},
			[]string{"**s13**. No run invalid on any version. Not applicable on 3.9.2. Not judged (run failed, or no verdict) on 4.4.0 (1 runs)."},
			[]string{"Expectation held"}},
		{"settings name the group; a JIRA without a finding says so",
			[]Row{
				{ID: "t4/unclean=true/4.4.0", Scenario: "t4", Settings: map[string]string{"unclean": "true"}, Kafka: "4.4.0",
					Status: CellMatch, Jira: []string{"KAFKA-20716"}, Measure: Measure{Verdict: Invalid, Other: map[string]int{"txn-hanging": 1}}},
				{ID: "t4/unclean=false/4.4.0", Scenario: "t4", Settings: map[string]string{"unclean": "false"}, Kafka: "4.4.0",
					Status: CellMatch, Jira: []string{"KAFKA-20716"}, Measure: Measure{Verdict: Valid}},
			},
			[]string{"**t4/unclean=true (KAFKA-20716)**. Runs invalid (the checker's verdict) on 4.4.0: 1 of 1 runs (txn-hanging).",
				"**t4/unclean=false (KAFKA-20716)**. No run invalid on any version. Every judged run valid on 4.4.0: 0 of 1 runs.",
				"JIRA status: not recorded (the scenario has no finding: block)."},
			nil},
		{"a cell kchaos cannot drive yet: refused, named, not judged",
			[]Row{
				{ID: "k20845/-/4.2.2", Scenario: "k20845", Kafka: "4.2.2", Status: CellNeeds, Jira: []string{"KAFKA-20845"},
					Reason: "needs the group coordinator's state as evidence (coordinator-state)", Measure: Measure{Verdict: Unchecked},
					Finding: &histories.Finding{Status: "fixed by apache/kafka#22969", Steps: "fail the coordinator over", Needs: []string{"coordinator-state"}}},
				{ID: "k20845/-/4.4.0", Scenario: "k20845", Kafka: "4.4.0", Status: CellNeeds, Jira: []string{"KAFKA-20845"},
					Reason: "needs the group coordinator's state as evidence (coordinator-state)", Measure: Measure{Verdict: Unchecked},
					Finding: &histories.Finding{Status: "fixed by apache/kafka#22969", Steps: "fail the coordinator over", Needs: []string{"coordinator-state"}}},
			},
			[]string{"**k20845 (KAFKA-20845)**. Not run: kchaos needs the group coordinator's state as evidence (coordinator-state); refused on 4.2.2, 4.4.0.",
				"| needs |", "2 cells: 2 needs"},
			[]string{"No run invalid on any version", "Not judged", "Expectation held"}},
		{"no regression cell, no section",
			[]Row{{ID: "s1/-/4.4.0", Scenario: "s1", Kafka: "4.4.0", Status: CellMatch, Measure: Measure{Verdict: Valid}}},
			nil, []string{"Findings"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := SuiteBatch(SuiteFile{Name: "findings", Cells: tc.cells}).Write(dir); err != nil {
				t.Fatal(err)
			}
			md := readString(t, filepath.Join(dir, "suite.md"))
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("suite.md lacks %q:\n%s", w, md)
				}
			}
			for _, w := range tc.none {
				if strings.Contains(md, w) {
					t.Errorf("suite.md has %q:\n%s", w, md)
				}
			}
			if len(tc.want) > 0 {
				html := readString(t, filepath.Join(dir, "suite.html"))
				if !strings.Contains(html, "<h2>Findings</h2>") || !strings.Contains(html, "Minimal steps:") && tc.cells[0].Finding != nil {
					t.Errorf("suite.html lacks the Findings section")
				}
			}
		})
	}
}

// TestNeedsJUnit: a refused cell is a junit skip whose message says what
// kchaos lacks, never a pass.
func TestNeedsJUnit(t *testing.T) {
	dir := t.TempDir()
	cells := []Row{{ID: "k20839/-/4.4.0", Scenario: "k20839", Kafka: "4.4.0", Status: CellNeeds,
		Reason: "needs faults during bootstrap's first activation (bootstrap-faults)", Measure: Measure{Verdict: Unchecked}}}
	if err := SuiteBatch(SuiteFile{Name: "findings", Cells: cells}).Write(dir); err != nil {
		t.Fatal(err)
	}
	x := readString(t, filepath.Join(dir, "junit.xml"))
	if !strings.Contains(x, `<skipped message="needs faults during bootstrap&#39;s first activation (bootstrap-faults)">`) {
		t.Errorf("junit.xml lacks the skip with its message:\n%s", x)
	}
}
