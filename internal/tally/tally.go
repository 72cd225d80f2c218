// Package tally writes counts by name as the reasons of a verdict give
// them: "INVALID_RECORD 460, timeout 3", the largest first.
package tally

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Top is m's counts, largest first and ties by name, at most max of them
// and "..." for the rest ("" for an empty m; max < 1 lists all).
func Top(m map[string]int, max int) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(x, y string) int { return m[y] - m[x] })
	var parts []string
	for i, k := range keys {
		if max > 0 && i == max {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// N is "1 send" or "3 sends": n and the noun for it.
func N(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
