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
	res, md, html := checkedResults(t, testdataHistory("group-lost-by-commit.jsonl")(t))
	if res.Counts[checker.LostByCommit] != 1 {
		t.Fatalf("the testdata history finds %v", res.Counts)
	}
	wantReport(t, md, html,
		[]string{"## Consumer group g", "| m0 | p5 | 1 | 1 | 0 | 0 | 0: 2.1-4.5 s |", "lost by commit: orders-0 offsets 2-5 (4 records)"},
		[]string{`aria-label="consumer group lanes"`, `fill="#c0392b"><title>lost by commit`}, nil)
}

// TestGroupOutsideShown: the group section names each
// delivery-outside-assignment in words, in report.md and report.html.
func TestGroupOutsideShown(t *testing.T) {
	res, md, html := checkedResults(t, testdataHistory("group-outside-assignment.jsonl")(t))
	if res.Counts[checker.DeliveryOutsideAssignment] != 1 {
		t.Fatalf("the testdata history finds %v", res.Counts)
	}
	want := "delivery outside the assignment: group g: p5 (member m0, generation 2) delivered 2 records of orders-0 at offsets 4-5"
	wantReport(t, md, html, []string{"- **" + want}, []string{`<p class="bad">` + want}, nil)
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
