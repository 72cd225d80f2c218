package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPageJSONShapes: each page's JSON file keeps the field names and
// order it had before the pages shared one writer (matrix.json's
// "config" and "error", suite.json's "cells" and "outcome"), leaving out
// only the fields it always left out when empty.
func TestPageJSONShapes(t *testing.T) {
	row := Row{ID: "s1/-/4.4.0", Scenario: "s1", Kafka: "4.4.0", Status: CellMatch, Settings: map[string]string{"acks": "1"},
		Summary: "no anomalies", Reason: "why", Measure: Measure{Verdict: Valid, Lost: 1, Offline: map[string]float64{"t-0": 1}}}
	for _, tc := range []struct {
		name string
		b    Batch
		file string
		keys string // the keys of the JSON file, in order, top level and then the first row's
	}{
		{"matrix", MatrixBatch("s1", []Row{row}), "matrix.json",
			"columns rows config run_dir scenario verdict acked_lost offsets_reused offline_seconds error"},
		{"suite", SuiteBatch(SuiteFile{Name: "seeds", Cells: []Row{row}}), "suite.json",
			"name cells id scenario settings kafka status outcome reason verdict acked_lost"},
		{"audit", AuditBatch(Audit{Kafka: "4.4.0"}, []Row{row}), "audit.json",
			"kafka rows story description status verdict acked acked_lost offsets_reused offline_seconds reason facts"},
	} {
		dir := t.TempDir()
		if err := tc.b.Write(dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		// Keys at the top level (2 spaces) and of a row (6 spaces).
		var keys []string
		for _, m := range regexp.MustCompile(`(?m)^(  |      )"([a-z_]+)":`).FindAllStringSubmatch(string(b), -1) {
			keys = append(keys, m[2])
		}
		if got := strings.Join(keys, " "); got != tc.keys {
			t.Errorf("%s: keys\n%s\nwant\n%s\n%s", tc.name, got, tc.keys, b)
		}
	}
}
