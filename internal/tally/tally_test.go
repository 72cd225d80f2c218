package tally

import "testing"

func TestTop(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    map[string]int
		max  int
		want string
	}{
		{"empty", nil, 3, ""},
		{"largest first, ties by name", map[string]int{"b": 2, "a": 2, "c": 5}, 3, "c 5, a 2, b 2"},
		{"the rest elided", map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}, 2, "d 4, c 3, ..."},
		{"all", map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}, 0, "d 4, c 3, b 2, a 1"},
	} {
		if got := Top(tc.m, tc.max); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestN(t *testing.T) {
	for n, want := range map[int]string{0: "0 sends", 1: "1 send", 2: "2 sends"} {
		if got := N(n, "send", "sends"); got != want {
			t.Errorf("N(%d) = %q, want %q", n, got, want)
		}
	}
}
