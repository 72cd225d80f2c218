package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
)

// TestMetricsDerivedBound: a run folder's metrics carry the bounds
// derived from its run.json, so d1's `offline_seconds <
// isr_shrink_bound_seconds` is judged against the run's own settings; a
// run.json from before the request timeout was recorded (the recorded s2
// run's) gives no bound, and the check is unjudged, never guessed.
func TestMetricsDerivedBound(t *testing.T) {
	recorded, err := histories.ReadRunInfo("../histories/testdata/real-s2/run.json")
	if err != nil {
		t.Fatal(err)
	}
	history, err := os.ReadFile("../histories/testdata/real-s2/history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	withSettings := recorded
	withSettings.Producer.RequestTimeoutMS = 3000
	withSettings.BrokerConfigs = map[int32]map[string]string{0: {"replica.lag.time.max.ms": "4000"}, 1: {"replica.lag.time.max.ms": "4000"}}
	check, err := expect.Parse("offline_seconds < isr_shrink_bound_seconds", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		info  histories.RunInfo
		bound float64 // 0: absent
	}{
		{"the recorded run.json: no request timeout, no broker configs", recorded, 0},
		{"kchaos's render and d1's request timeout", withSettings, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), history, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := histories.WriteRunInfo(filepath.Join(dir, histories.RunInfoFile), tc.info); err != nil {
				t.Fatal(err)
			}
			m, _ := Metrics(dir)
			got, ok := m[expect.ISRShrinkBoundSeconds]
			if tc.bound == 0 {
				if ok {
					t.Errorf("bound %g from a run.json that cannot give it", got)
				}
				if st, _ := expect.Judge([]expect.Check{check}, nil, m); st != expect.Unjudged {
					t.Errorf("judged %s without a bound, want unjudged", st)
				}
				return
			}
			if !ok || got != tc.bound {
				t.Errorf("bound %g (present %v), want %g", got, ok, tc.bound)
			}
		})
	}
}
