package domain

import (
	"testing"

	"github.com/kchaos/kchaos/checker/anomaly"
)

// TestCount: an entry count is the length of the list whose JSON name is
// the kind's, and 0 for a name no list has.
func TestCount(t *testing.T) {
	x := &struct {
		A []int    `json:"a-kind,omitempty"`
		B []string `json:"b-kind,omitempty"`
		C []int    `json:"c-kind"`
	}{A: []int{1, 2}, B: []string{"x"}}
	for _, tc := range []struct {
		name string
		want int
	}{{"a-kind", 2}, {"b-kind", 1}, {"c-kind", 0}, {"omitempty", 0}, {"", 0}, {"A", 0}} {
		if got := Count(x, tc.name); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestInvalid: the generic reason names the kind and its count, and the
// producer's setting for a kind that counts only when it is idempotent.
func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		k    anomaly.Kind
		want string
	}{
		{anomaly.Kind{Name: "lost-write", Rule: anomaly.Always}, "lost-write: 3"},
		{anomaly.Kind{Name: "duplicate", Rule: anomaly.IfIdempotent}, "duplicate: 3 (the producer was idempotent)"},
	} {
		if got := (Base{}).Invalid(tc.k, 3); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.k.Name, got, tc.want)
		}
	}
}
