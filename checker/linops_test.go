package checker

import "testing"

// TestTighteningChangesNothing: tightening an open-ended append's return to
// the first read that saw it gives the same verdicts on the whole corpus.
func TestTighteningChangesNothing(t *testing.T) {
	defer func() { tighten = true }()
	for _, tc := range testdataCases(t) {
		tighten = true
		a := checkCase(t, tc).Linearizable.Result
		tighten = false
		b := checkCase(t, tc).Linearizable.Result
		if a != b {
			t.Errorf("%s: tightened %s, open-ended %s", tc.name, a, b)
		}
	}
}
