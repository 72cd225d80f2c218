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

// TestGroupReadBackShown: the group section says what the coordinator
// held at the end (the group-final read-back), and plainly when it never
// answered: the checker judges nothing from such a read-back, so the
// report must not leave it to the operations table.
func TestGroupReadBackShown(t *testing.T) {
	_, md, html := checkedResults(t, testdataHistory("group-commit-lost.jsonl")(t))
	want := "read-back at 4.4 s: the coordinator (broker 2) holds committed offsets for 2 partition(s); a classic group, Empty, 0 member(s); 1 partition(s) below an acknowledged commit (commit-lost)"
	wantReport(t, md, html, []string{"- " + want}, []string{"<p>" + want}, nil)

	// The same history with its read-back ended info: the coordinator
	// never answered.
	h, err := os.ReadFile("../histories/testdata/group-commit-lost.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(h), "\n"), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"type":"ok","f":"group-final"`) {
			lines[i] = `{"index":41,"time":4500000000,"process":11,"type":"info","f":"group-final","value":{"group":"g","topic":"orders","attempts":27},"error":"NOT_COORDINATOR"}`
		}
	}
	_, md, html = checkedResults(t, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, HistoryFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	want = "read-back at 4.4 s: the group coordinator never answered (info, last error NOT_COORDINATOR): its state is unknown and nothing is judged from it"
	wantReport(t, md, html, []string{"- " + want}, []string{"<p>" + want}, nil)
}
