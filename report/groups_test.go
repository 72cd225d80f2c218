package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
)

// TestGroupLanes: a run with a consumer group gets a lane per member, its
// held partitions, its commits and the commit that lost records marked.
func TestGroupLanes(t *testing.T) {
	dir := t.TempDir()
	h, err := os.ReadFile("../histories/testdata/group-lost-by-commit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), h, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _, err := checker.CheckPath(filepath.Join(dir, HistoryFile), checker.Options{SkipLinearizability: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[checker.LostByCommit] != 1 {
		t.Fatalf("the testdata history finds %v", res.Counts)
	}
	if err := checker.WriteResults(filepath.Join(dir, ResultsFile), res); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	md := readString(t, filepath.Join(dir, ReportMD))
	for _, w := range []string{"## Consumer group g", "| m0 | p5 | 1 | 1 | 0 | 0 | 0: 2.1-4.5 s |",
		"lost by commit: orders-0 offsets 2-5 (4 records)"} {
		if !strings.Contains(md, w) {
			t.Errorf("report.md lacks %q:\n%s", w, md)
		}
	}
	html := readString(t, filepath.Join(dir, ReportHTML))
	if !strings.Contains(html, `aria-label="consumer group lanes"`) || !strings.Contains(html, `fill="#c0392b"><title>lost by commit`) {
		t.Error("report.html lacks the group lanes or the lost-by-commit mark")
	}
}

// TestGroupOutsideShown: the group section names each
// delivery-outside-assignment in words, in report.md and report.html.
func TestGroupOutsideShown(t *testing.T) {
	dir := t.TempDir()
	h, err := os.ReadFile("../histories/testdata/group-outside-assignment.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), h, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _, err := checker.CheckPath(filepath.Join(dir, HistoryFile), checker.Options{SkipLinearizability: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[checker.DeliveryOutsideAssignment] != 1 {
		t.Fatalf("the testdata history finds %v", res.Counts)
	}
	if err := checker.WriteResults(filepath.Join(dir, ResultsFile), res); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	want := "delivery outside the assignment: group g: p5 (member m0, generation 2) delivered 2 records of orders-0 at offsets 4-5"
	if md := readString(t, filepath.Join(dir, ReportMD)); !strings.Contains(md, "- **"+want) {
		t.Errorf("report.md lacks %q:\n%s", want, md)
	}
	if html := readString(t, filepath.Join(dir, ReportHTML)); !strings.Contains(html, `<p class="bad">`+want) {
		t.Error("report.html lacks the delivery outside the assignment")
	}
}

// TestNoGroupNoSection: a run without a group has no group section.
func TestNoGroupNoSection(t *testing.T) {
	dir := t.TempDir()
	h, _ := os.ReadFile("../histories/testdata/lost-write.jsonl")
	os.WriteFile(filepath.Join(dir, HistoryFile), h, 0o644)
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readString(t, filepath.Join(dir, ReportMD)), "Consumer group") {
		t.Error("a run without a group shows a group section")
	}
}
