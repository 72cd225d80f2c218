package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSuiteAndCompare(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "..", "s4-run")
	cells := []Row{
		{ID: "s1/-/4.1.2", Scenario: "s1", Kafka: "4.1.2", Status: CellMatch, Checks: []string{"lost-write == 0: got 0"}, RunDir: runDir},
		{ID: "s4/-/4.1.2", Scenario: "s4", Kafka: "4.1.2", Status: CellDiffer, Checks: []string{"errors.NOT_ENOUGH_REPLICAS > 0: got 0 (differs)"}},
		{ID: "s8/elr=on/3.9.1", Scenario: "s8", Kafka: "3.9.1", Status: CellNotApplicable, Reason: "ELR needs Kafka 4.0"},
		{ID: "s9/unclean=true/4.1.2", Scenario: "s9", Kafka: "4.1.2", Status: CellUnjudged, Reason: "run failed: cluster"},
	}
	base := []Row{
		{ID: "s1/-/4.1.2", Status: CellMatch},
		{ID: "s4/-/4.1.2", Status: CellMatch},
		{ID: "s5/-/4.1.2", Status: CellMatch},
	}
	ch := Compare(base, cells)
	want := []Change{{"s4/-/4.1.2", CellMatch, CellDiffer}, {"s8/elr=on/3.9.1", "", CellNotApplicable},
		{"s9/unclean=true/4.1.2", "", CellUnjudged}, {"s5/-/4.1.2", CellMatch, ""}}
	if len(ch) != len(want) {
		t.Fatalf("changes %v, want %v", ch, want)
	}
	for i := range want {
		if ch[i] != want[i] {
			t.Errorf("change %d = %v, want %v", i, ch[i], want[i])
		}
	}
	if err := SuiteBatch(SuiteFile{Name: "seeds", Cells: cells, Baseline: "old", Changes: ch}).Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSuite(dir)
	if err != nil || len(back.Cells) != 4 || back.Cells[0].RunDir != "../s4-run" {
		t.Fatalf("read back %+v, %v", back, err)
	}
	var ju struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name string `xml:"name,attr"`
		} `xml:"testcase"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err := xml.Unmarshal(b, &ju); err != nil {
		t.Fatal(err)
	}
	if ju.Tests != 4 || len(ju.Cases) != 4 || ju.Failures != 1 || ju.Errors != 1 || ju.Skipped != 1 || ju.Cases[3].Name != "s9/unclean=true/4.1.2" {
		t.Errorf("junit %+v", ju)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "suite.md"))
	for _, w := range []string{"4 cells: 1 match, 1 differ, 1 unjudged, 1 not-applicable", "| s4/-/4.1.2 | errors.NOT_ENOUGH_REPLICAS > 0: got 0 (differs) |", "- s5/-/4.1.2: match → (absent)", "[report](../s4-run/report.html)"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("suite.md lacks %q:\n%s", w, md)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "suite.html"))
	if !strings.Contains(string(html), `<td class="differ">differ</td>`) {
		t.Errorf("suite.html lacks the differ cell")
	}
}
