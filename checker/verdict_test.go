package checker

import (
	"slices"
	"testing"
)

// TestVerdictRuleInOnePlace: the exit code and the list of what counts
// against validity are the checker's.
func TestVerdictRuleInOnePlace(t *testing.T) {
	for v, code := range map[Verdict]int{Valid: 0, Invalid: 1, Unknown: 2} {
		if v.ExitCode() != code {
			t.Errorf("%v exit %d, want %d", v, v.ExitCode(), code)
		}
	}
	if slices.Contains(CountsAgainst(false, false), Duplicate) || !slices.Contains(CountsAgainst(true, false), Duplicate) ||
		slices.Contains(CountsAgainst(true, false), Unseen) || !slices.Contains(CountsAgainst(false, false), Nonlinearizable) {
		t.Errorf("CountsAgainst: %v / %v", CountsAgainst(false, false), CountsAgainst(true, false))
	}
	res := mustCheck(t, lines2hist(cat(send(0, 1, 2, 0, "a", "ok", 0), final(9, 3, 4, []int{0}, map[int]int64{0: 1}, "ok", "0:0:a"))...), Options{})
	if !slices.Equal(res.Against, CountsAgainst(false, false)) {
		t.Errorf("result's list %v", res.Against)
	}
}
