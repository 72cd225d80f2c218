package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// A run whose scenario names Kafka bugs and documents shows them, linked,
// on its report, and as junit properties; a suite cell likewise.
func TestRefsShownOnRunAndSuite(t *testing.T) {
	dir := t.TempDir()
	s2Run(t, dir, true)
	p := filepath.Join(dir, histories.RunInfoFile)
	info, err := histories.ReadRunInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	info.Jira = []string{"KAFKA-20732"}
	info.Docs = []string{"https://kafka.apache.org/documentation/#tiered_storage"}
	if err := histories.WriteRunInfo(p, info); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]string{
		ReportMD:   {"Guards against: [KAFKA-20732](https://issues.apache.org/jira/browse/KAFKA-20732), <https://kafka.apache.org/documentation/#tiered_storage>"},
		ReportHTML: {`<a href="https://issues.apache.org/jira/browse/KAFKA-20732">KAFKA-20732</a>`},
		JUnitFile:  {`<property name="jira" value="KAFKA-20732"></property>`, `<property name="docs" value="https://kafka.apache.org/documentation/#tiered_storage"></property>`},
	} {
		got := readString(t, filepath.Join(dir, file))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}

	sdir := t.TempDir()
	cells := []Row{
		{ID: "kafka-20732/-/4.3.1", Scenario: "kafka-20732", Kafka: "4.3.1", Status: CellDiffer, Jira: []string{"KAFKA-20732"}},
		{ID: "s1/-/4.4.0", Scenario: "s1", Kafka: "4.4.0", Status: CellMatch},
	}
	if err := SuiteBatch(SuiteFile{Name: "findings", Cells: cells}).Write(sdir); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]string{
		"suite.md":   {"| kafka-20732/-/4.3.1 (KAFKA-20732) |", "| s1/-/4.4.0 |"},
		"suite.html": {`<div class="refs"><a href="https://issues.apache.org/jira/browse/KAFKA-20732">KAFKA-20732</a></div>`},
		"suite.json": {`"jira": [`},
		"junit.xml":  {`<property name="jira" value="KAFKA-20732"></property>`},
	} {
		got := readString(t, filepath.Join(sdir, file))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", file, w, got)
			}
		}
	}
	if j := readString(t, filepath.Join(sdir, "junit.xml")); strings.Count(j, "<properties>") != 1 {
		t.Errorf("junit.xml: want properties on the cell with refs only:\n%s", j)
	}
	if _, err := os.Stat(filepath.Join(sdir, "suite.md")); err != nil {
		t.Fatal(err)
	}
}
