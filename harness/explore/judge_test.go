package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
)

// TestJudgeUnexercised: a run whose checks held vacuously (Kafka
// acknowledged nothing: histories/testdata/real-compacted-keyless, 460
// sends refused) is no judged run that found nothing: judge gives an
// error naming why, so the exploration counts it with the runs that
// failed before their check (no draw for a rate or a shrink's rerun,
// toward the stop after several in a row). A run that acknowledged
// records (real-s1) is judged.
func TestJudgeUnexercised(t *testing.T) {
	s, err := scenario.Load("s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"real-compacted-keyless", "Kafka acknowledged nothing of the run, so its checks held vacuously: nothing was acknowledged: 460 sends"},
		{"real-s1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"history.jsonl", "run.json"} {
				b, err := os.ReadFile(filepath.Join("..", "..", "histories", "testdata", tc.name, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, _, err := checker.CheckPath(dir, checker.Options{SkipLinearizability: true})
			if err != nil {
				t.Fatal(err)
			}
			out, err := judge(s, &harness.RunResult{Dir: dir, Result: res}, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("not judged: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("judged %+v, %v; want an error naming %q", out, err, tc.want)
			}
		})
	}
}
