package explore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/brokerlogs"
	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/explore/states"
)

// TestMarkerNames: the markers states reads are brokerlogs' own names.
func TestMarkerNames(t *testing.T) {
	for _, c := range [][2]string{{states.MarkerTruncateBelowHW, brokerlogs.MTruncateBelowHW},
		{states.MarkerUncleanElection, brokerlogs.MUncleanElection}, {states.MarkerFenced, brokerlogs.MFenced}} {
		if c[0] != c[1] {
			t.Errorf("states reads %q, brokerlogs names it %q", c[0], c[1])
		}
	}
}

// TestRunCoverage: a run folder's history, run.json and logs/summary.json
// (a truncation below the high watermark on orders-0 after the heal)
// give its coverage.json; without the summary the truncation is unknown.
func TestRunCoverage(t *testing.T) {
	src := filepath.Join("..", "..", "histories", "testdata", "real-s2")
	for _, c := range []struct {
		name    string
		summary bool
		want    string
	}{
		{"with the logs' markers", true, "truncation=seen"},
		{"without logs", false, "truncation=unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{checker.HistoryFile, "run.json"} {
				b, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.summary {
				at := int64(30e9) // after the heal of the kill (28.7 s), before the final heal
				sum := brokerlogs.Summary{Zone: "UTC", Markers: []brokerlogs.Marker{{Name: brokerlogs.MTruncateBelowHW, Role: "broker", Node: 0,
					File: "logs/broker-0.log", Time: &at, Partition: "orders-0", Fields: map[string]string{"offset": "195", "high_watermark": "314"}}}}
				b, _ := json.Marshal(sum)
				if err := os.MkdirAll(filepath.Join(dir, brokerlogs.Dir), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, brokerlogs.Dir, brokerlogs.SummaryFile), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cov, err := runCoverage(dir)
			if err != nil {
				t.Fatal(err)
			}
			back, err := states.Read(filepath.Join(dir, states.CoverageFile))
			if err != nil || back.Distinct() != cov.Distinct() || cov.Distinct() != 6 {
				t.Fatalf("coverage.json: %v, %d distinct (written %d), want s2's 6", err, back.Distinct(), cov.Distinct())
			}
			last := ""
			for _, tr := range cov.Transitions {
				if tr.Fault == "heal-all" {
					last = tr.After
				}
			}
			if !strings.Contains(last, c.want) {
				t.Errorf("the final state %q lacks %s", last, c.want)
			}
		})
	}
}
