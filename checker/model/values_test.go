package model

import (
	"fmt"
	"testing"
)

// TestValueIndex: the index numbers strings as a map does (one number per
// distinct string, in the order first seen), whichever table holds them:
// counters of every width, leading zeros, no digits, counters too large
// for the dense table, and more prefixes than it keeps.
func TestValueIndex(t *testing.T) {
	many := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("q%d-%d", i, i%3))
		}
		return out
	}
	cases := []struct {
		name string
		vals []string
	}{
		{"counters", []string{"v0", "v1", "v10", "v1", "v0", "v9999999", "v1048575", "v1048576"}},
		{"leading zeros", []string{"v7", "v07", "v007", "v0000007", "v07", "v7", "v00000007"}},
		{"no digits", []string{"", "a", "b", "a", "-", ""}},
		{"digits only", []string{"0", "00", "000", "1", "0", "12345678"}},
		{"processes", []string{"p3-000123", "p3-000124", "p13-000123", "p3-000123", "p3-123"}},
		{"many prefixes", append(many(3*maxDenseKeys), many(3*maxDenseKeys)...)},
		{"non-ascii", []string{"é1", "é1", "\xff2", "é01"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := NewValueIndex(0)
			want := map[string]int32{}
			for _, v := range tc.vals {
				w, seen := want[v]
				if !seen {
					w = int32(len(want))
					want[v] = w
				}
				id, s, added := x.Intern([]byte(v), int32(len(want)-1))
				if !seen {
					id2 := int32(len(want) - 1)
					if id != id2 || !added || s != v {
						t.Fatalf("%q new: got %d %q %v, want %d added", v, id, s, added, id2)
					}
				} else if id != w || added {
					t.Fatalf("%q again: got %d %v, want %d", v, id, added, w)
				}
			}
			for v, w := range want {
				if id, ok := x.find(v); !ok || id != w {
					t.Fatalf("Find(%q) = %d %v, want %d", v, id, ok, w)
				}
			}
			for _, v := range []string{"v5", "nope", "v0000000", "zz9"} {
				if _, in := want[v]; in {
					continue
				}
				if id, ok := x.find(v); ok {
					t.Fatalf("Find(%q) = %d, want none", v, id)
				}
			}
		})
	}
}
