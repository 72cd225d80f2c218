package explore

import (
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/nemesis"
)

// TestSummaryUnsampledLine: explore.md says how many transitions
// coverage.json records from before a first sample, only where there
// are some and the record says so.
func TestSummaryUnsampledLine(t *testing.T) {
	for _, c := range []struct {
		name      string
		unsampled *int
		want      string
	}{
		{"recorded before the rule", nil, "Strategy: random; 4 distinct transitions covered (coverage.json)."},
		{"none", new(0), "Strategy: random; 4 distinct transitions covered (coverage.json)."},
		{"three", new(3), "Strategy: random; 4 distinct transitions covered (coverage.json, which also records 3 struck before the observer's first sample, not counted)."},
	} {
		s := exploration("weak", StrategyRandom, 1, []string{"", ""}, []int{3, 1})
		s.Unsampled = c.unsampled
		if md := s.Markdown(); !strings.Contains(md, c.want) {
			t.Errorf("%s: explore.md lacks %q:\n%s", c.name, c.want, md)
		}
	}
}

// TestSummaryJudgedLine: explore.md says how many runs were judged where
// some failed before their check, and gives no runs-per-hour figure to
// runs that all failed.
func TestSummaryJudgedLine(t *testing.T) {
	for _, c := range []struct {
		name     string
		runs     []string
		has, not string
	}{
		{"all judged", []string{"", ""}, "2 runs, 0 findings, 7.0 runs per hour (", "judged"},
		{"one failed", []string{"", "!"}, "2 runs (1 judged; the others failed before their check), 0 findings, 7.0 runs per hour (", ""},
		{"all failed", []string{"!", "!"}, "2 runs (0 judged; the others failed before their check), 0 findings (", "runs per hour"},
	} {
		s := exploration("weak", StrategyRandom, 1, c.runs, make([]int, len(c.runs)))
		s.RunsPerHour = 7
		md := s.Markdown()
		if !strings.Contains(md, c.has) || c.not != "" && strings.Contains(md, c.not) {
			t.Errorf("%s: explore.md lacks %q or has %q:\n%s", c.name, c.has, c.not, md)
		}
	}
}

// TestStepWordsUntil: a repro's until reads with its bound and whether the
// story goes on when it does not hold (finding.md's steps).
func TestStepWordsUntil(t *testing.T) {
	for _, c := range []struct {
		st   nemesis.Step
		want string
	}{
		{nemesis.Step{Until: &nemesis.Condition{ISR: []int32{0}}, Timeout: nemesis.Duration(6 * time.Second), Optional: true},
			"until partition 0 isr [0] (at most 6s, then on either way)"},
		{nemesis.Step{Until: &nemesis.Condition{Struck: nemesis.StruckFenced}},
			"until the last fault's nodes fenced (at most the default bound)"},
	} {
		if got := stepWords(c.st); got != c.want {
			t.Errorf("stepWords = %q, want %q", got, c.want)
		}
	}
}
