package report

import (
	"testing"

	"github.com/kchaos/kchaos/checker"
)

// TestCountedComesFromTheChecker: what counts against validity is the
// checker's result's word, never re-derived here.
func TestCountedComesFromTheChecker(t *testing.T) {
	cr := &checker.Result{Idempotent: false, Against: []string{checker.OffsetReuse},
		Counts: map[string]int{checker.LostWrite: 1, checker.OffsetReuse: 2, checker.Duplicate: 1}}
	r := fromChecker(cr)
	for kind, want := range map[string]bool{checker.LostWrite: false, checker.OffsetReuse: true, checker.Duplicate: false, checker.Unseen: false} {
		if got := r.counted(kind); got != want {
			t.Errorf("%s counted %v, want %v (the checker's list)", kind, got, want)
		}
	}
	old := fromChecker(&checker.Result{Idempotent: true}) // a results.json without the list
	if !old.counted(checker.Duplicate) || old.counted(checker.Unseen) {
		t.Errorf("fallback to the checker's rule broken")
	}
}
