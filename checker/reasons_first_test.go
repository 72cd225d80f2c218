package checker

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShareReasonsNameTheFirst: each counted share kind's reason names
// its first record (partition, offset, value) and why, so that what a run
// prints says what the verdict rests on; before, it said "share-lost: 1"
// and left the rest to the report.
func TestShareReasonsNameTheFirst(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "histories", "testdata", "share-anomalies.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res := mustCheck(t, string(b), Options{})
	reasons := strings.Join(res.Reasons, "\n")
	for _, want := range []string{
		`share-lost: 1 (first: orders-0 offset 5 (value "v5"): the share-partition start offset 6 passed it`,
		`share-double-acquire: 1 (first: orders-0 offset 1 (value "v1"): delivered twice with delivery count 1`,
		`share-redelivered-after-accept: 1 (first: orders-0 offset 0 (value "v0"): p10's accept of delivery 1 was confirmed`,
		`share-delivery-count: 1 (first: orders-0 offset 4 (value "v4"): delivery count 5 exceeds`,
	} {
		if !strings.Contains(reasons, want) {
			t.Errorf("no reason says %q:\n%s", want, reasons)
		}
	}
}

// TestNonlinearizableReasonNamesThePartition: the reason names the first
// partition without a linearization and its offsets (before: the count).
func TestNonlinearizableReasonNamesThePartition(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "histories", "testdata", "lost-write.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res := mustCheck(t, string(b), Options{})
	want := "nonlinearizable: 1 (first: orders-0: offsets 0-3 have no linearization)"
	if !slices.Contains(res.Reasons, want) {
		t.Errorf("no reason says %q: %q", want, res.Reasons)
	}
}

// TestUnseenReasonNamesTheFirst: an unknown verdict for unseen sends
// names the first of them (value, offset, partition, process, ack time).
func TestUnseenReasonNamesTheFirst(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "histories", "testdata", "unseen.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res := mustCheck(t, string(b), Options{})
	want := "unseen: 1 acked send no completed final read could judge"
	first := "; first: a1 at offset 1 of orders-0 (p0, acked at 2.5 s)"
	reasons := strings.Join(res.Reasons, "\n")
	if !strings.Contains(reasons, want) || !strings.Contains(reasons, first) {
		t.Errorf("reasons lack %q and %q:\n%s", want, first, reasons)
	}
}
