package explore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/scenario"
)

// failing is a runner whose runs fail before their check where fail says.
func failing(fail func(i int) bool) runner {
	i := 0
	return func(context.Context, *scenario.Scenario, string) (judged, error) {
		defer func() { i++ }()
		if fail(i) {
			return judged{}, errors.New("cluster: image kchaos/kafka:4.4.0 is not built")
		}
		return judged{Verdict: checker.Valid}, nil
	}
}

// TestExploreStopsOnFailingRuns (issue 37): runs failing before their
// check stop the exploration after MaxFailedInARow in a row (exit 2 with
// the last error), rather than spin until --for is up; failures broken
// by a judged run do not.
func TestExploreStopsOnFailingRuns(t *testing.T) {
	e := explorable(t, "s2")
	for _, tc := range []struct {
		name    string
		fail    func(i int) bool
		runs    int
		exit    int
		stopped bool
	}{
		{"every run fails", func(int) bool { return true }, maxFailedInARow, 2, true},
		{"fails after two judged", func(i int) bool { return i >= 2 }, 2 + maxFailedInARow, 2, true},
		{"failures broken by judged runs", func(i int) bool { return i%3 != 2 }, 12, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, _, err := explore(context.Background(), Config{Scenario: e, Runs: 12, Seed: 7, Store: t.TempDir(), NoShrink: true}, failing(tc.fail))
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.RunRecords) != tc.runs || sum.Exit() != tc.exit || (sum.Stopped != "") != tc.stopped {
				t.Errorf("%d runs, exit %d, stopped %q; want %d, %d, %v", len(sum.RunRecords), sum.Exit(), sum.Stopped, tc.runs, tc.exit, tc.stopped)
			}
			if tc.stopped && (!strings.Contains(sum.Stopped, "3 runs in a row failed") || !strings.Contains(sum.Stopped, "is not built") ||
				sum.Why() == nil || !strings.Contains(sum.Why().Error(), "is not built")) {
				t.Errorf("stopped %q, why %v: want the count and the last error", sum.Stopped, sum.Why())
			}
		})
	}
}

// TestExploreStopsOnUnexercisedRuns: runs whose checks held vacuously
// (Kafka acknowledged nothing: judge's unexercisedError) are not judged
// either, and stop the exploration as failing ones do, the stop saying
// which they were.
func TestExploreStopsOnUnexercisedRuns(t *testing.T) {
	e := explorable(t, "s2")
	run := func(context.Context, *scenario.Scenario, string) (judged, error) {
		return judged{}, unexercisedError("nothing was acknowledged: 9 sends (9 failed, 0 unknown; INVALID_RECORD 9)")
	}
	sum, _, err := explore(context.Background(), Config{Scenario: e, Runs: 12, Seed: 7, Store: t.TempDir(), NoShrink: true}, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.RunRecords) != maxFailedInARow || sum.Exit() != 2 || sum.judged() != 0 ||
		!strings.Contains(sum.Stopped, "3 runs in a row were not judged (the last checked, Kafka having acknowledged nothing of it)") ||
		!strings.Contains(sum.Stopped, "INVALID_RECORD 9") {
		t.Errorf("%d runs, exit %d, %d judged, stopped %q", len(sum.RunRecords), sum.Exit(), sum.judged(), sum.Stopped)
	}
}

// TestMergeGates (issue 37): a shard's explore.json must be an
// exploration's record ({} is not); a shard whose every run failed is
// exit 2, named; nothing judged at all is 2, "nothing was judged".
func TestMergeGates(t *testing.T) {
	e := explorable(t, "s2")
	shard := func(i int, fail func(int) bool) string {
		_, dir, err := explore(context.Background(), Config{Scenario: e, Runs: 4, Seed: 7, Store: t.TempDir(), Shard: Shard{I: i, N: 2}, NoShrink: true}, failing(fail))
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	allFail := func(int) bool { return true }
	none := func(int) bool { return false }
	m, err := Merge([]string{shard(1, allFail), shard(2, allFail)})
	if err != nil {
		t.Fatal(err)
	}
	if why := m.Why(false); m.Exit(false) != 2 || why == nil || !strings.Contains(why.Error(), "nothing was judged") {
		t.Errorf("every run failed: exit %d, %v", m.Exit(false), why)
	}
	m, err = Merge([]string{shard(1, none), shard(2, allFail)})
	if err != nil {
		t.Fatal(err)
	}
	if why := m.Why(false); m.Exit(false) != 2 || why == nil || !strings.Contains(why.Error(), "shard(s) [2] judged no run") {
		t.Errorf("shard 2 failed: exit %d, %v", m.Exit(false), why)
	}
	if m, err := Merge([]string{shard(1, none), shard(2, none)}); err != nil || m.Exit(false) != 0 {
		t.Errorf("every run judged: %v", err)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"empty object", "{}", "field(s) scenario, kafka, base_seed, started, run_records, findings missing"},
		{"no seed", `{"scenario":"s2","kafka":"4.4.0","base_seed":0,"started":"2026-01-01T00:00:00Z","run_records":[],"findings":[]}`, "base_seed is 0"},
		{"an array", "[]", "cannot unmarshal"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		var bad *scenario.BadInputError
		if _, err := Merge([]string{dir}); !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), SummaryFile) {
			t.Errorf("%s: %v, want bad input naming %s: %s", tc.name, err, SummaryFile, tc.want)
		}
	}
}

// TestParseFaults: --faults with no name or a blank name is refused.
func TestParseFaults(t *testing.T) {
	for _, tc := range []struct {
		v, want string // want "" for accepted
	}{
		{"kill,pause", ""},
		{" , ", `--faults " , ": name 1 is blank`},
		{"", `--faults "": name 1 is blank`},
		{"kill,,pause", `--faults "kill,,pause": name 2 is blank`},
	} {
		_, err := ParseFaults(tc.v)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want %q", tc.v, err, tc.want)
		}
	}
}
