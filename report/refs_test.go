package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// A run whose scenario names Kafka bugs and documents, and carries a
// finding (the JIRA's status, the minimal steps), shows them on its
// report, linked, and as junit properties; a suite cell likewise, and
// suite.json keeps them.
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
	info.Finding = &histories.Finding{Status: "fixed in 4.4.0 & 4.3.2", Steps: "restart the leader <3 times>"}
	if err := histories.WriteRunInfo(p, info); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	filesContain(t, dir, map[string][]string{
		ReportMD: {"Guards against: [KAFKA-20732](https://issues.apache.org/jira/browse/KAFKA-20732), <https://kafka.apache.org/documentation/#tiered_storage>",
			"JIRA status: fixed in 4.4.0 & 4.3.2", "Minimal steps: restart the leader"},
		ReportHTML: {`<a href="https://issues.apache.org/jira/browse/KAFKA-20732">KAFKA-20732</a>`,
			"<p>JIRA status: fixed in 4.4.0 &amp; 4.3.2</p>", "<p>Minimal steps: restart the leader &lt;3 times&gt;</p>"},
		JUnitFile: {`<property name="jira" value="KAFKA-20732"></property>`, `<property name="docs" value="https://kafka.apache.org/documentation/#tiered_storage"></property>`,
			`<property name="jira_status" value="fixed in 4.4.0 &amp; 4.3.2"></property>`, `<property name="steps" value="restart the leader &lt;3 times&gt;"></property>`},
	})

	sdir := t.TempDir()
	cells := []Row{
		{ID: "kafka-20732/-/4.3.1", Scenario: "kafka-20732", Kafka: "4.3.1", Status: CellDiffer, Jira: []string{"KAFKA-20732"}, Finding: info.Finding},
		{ID: "s1/-/4.4.0", Scenario: "s1", Kafka: "4.4.0", Status: CellMatch},
	}
	if err := SuiteBatch(SuiteFile{Name: "findings", Cells: cells}).Write(sdir); err != nil {
		t.Fatal(err)
	}
	filesContain(t, sdir, map[string][]string{
		"suite.md":   {"| kafka-20732/-/4.3.1 (KAFKA-20732) |", "| s1/-/4.4.0 |"},
		"suite.html": {`<div class="refs"><a href="https://issues.apache.org/jira/browse/KAFKA-20732">KAFKA-20732</a></div>`},
		"suite.json": {`"jira": [`, `"finding": {`, `"steps": "restart the leader \u003c3 times\u003e"`},
		"junit.xml":  {`<property name="jira" value="KAFKA-20732"></property>`, `<property name="jira_status" value="fixed in 4.4.0 &amp; 4.3.2"></property>`},
	})
	if j := readString(t, filepath.Join(sdir, "junit.xml")); strings.Count(j, "<properties>") != 1 {
		t.Errorf("junit.xml: want properties on the cell with refs only:\n%s", j)
	}
	if _, err := os.Stat(filepath.Join(sdir, "suite.md")); err != nil {
		t.Fatal(err)
	}
}

// filesContain asserts that each file of dir holds each of its strings.
func filesContain(t *testing.T, dir string, want map[string][]string) {
	t.Helper()
	for file, ws := range want {
		got := readString(t, filepath.Join(dir, file))
		for _, w := range ws {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", file, w, got)
			}
		}
	}
}
