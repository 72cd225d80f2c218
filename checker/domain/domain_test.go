package domain

import (
	"reflect"
	"slices"
	"strings"
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

// TestKinds: a struct of entry lists declares a kind per list, in order,
// from its tags; a list without a known rule or unit, or something other
// than a struct, is an error (a name declared twice is anomaly.Check's,
// and go vet's).
func TestKinds(t *testing.T) {
	type good struct {
		A []int    `json:"a-kind,omitempty" unit:"per send" rule:"always"`
		B []string `json:"b-kind" unit:"per value" rule:"if idempotent"`
		C []int    `json:"c-kind,omitempty" unit:"per case" rule:"unknown"`
	}
	got, err := declaredKinds(reflect.TypeFor[*good]())
	want := []anomaly.Kind{{Name: "a-kind", Unit: "per send", Rule: anomaly.Always},
		{Name: "b-kind", Unit: "per value", Rule: anomaly.IfIdempotent}, {Name: "c-kind", Unit: "per case", Rule: anomaly.Unjudged}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("%v, %v; want %v", got, err, want)
	}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct {
			A []int `json:"a" unit:"per send"`
		}](), "unknown rule"},
		{reflect.TypeFor[struct {
			A []int `json:"a" unit:"per send" rule:"Always"`
		}](), "unknown rule"},
		{reflect.TypeFor[struct {
			A []int `json:"a" rule:"always"`
		}](), "no unit"},
		{reflect.TypeFor[[]int](), "want a struct"},
	} {
		if _, err := declaredKinds(tc.typ); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.typ, err, tc.want)
		}
	}
}
