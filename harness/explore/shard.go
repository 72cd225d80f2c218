package explore

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of N deterministic slices of a batch's work (--shard I/N):
// run or cell i belongs to shard i mod N + 1, so that N CI runners given
// the same base seed and the same list each do a disjoint part and
// together all of it, whatever order they start in. The zero Shard is
// the whole.
type Shard struct{ I, N int }

// ParseShard reads "I/N" (1 <= I <= N); "" is the whole.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return Shard{I: i, N: n}, nil
}

func (sh Shard) whole() bool { return sh.N <= 1 }

// String is "I/N" ("" for the whole).
func (sh Shard) String() string {
	if sh.whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.I, sh.N)
}

// owns reports whether item i (0-based) is this shard's.
func (sh Shard) owns(i int) bool { return sh.whole() || i%sh.N == sh.I-1 }

// items is the indexes of n items (cells, runs) this shard does.
func (sh Shard) items(n int) []int {
	var out []int
	for i := range n {
		if sh.owns(i) {
			out = append(out, i)
		}
	}
	return out
}

// Next is the first index at or after i that this shard owns: an
// exploration bounded by time (--for) walks its runs with it.
func (sh Shard) Next(i int) int {
	for !sh.owns(i) {
		i++
	}
	return i
}

// runSeed is run i's seed in an exploration with base seed base: a
// splitmix64 step of base+i, so that neighbouring runs draw unrelated
// schedules and any run can be redone alone from (base, i). It is kept
// to 53 bits (a history records seeds as JSON numbers) and never 0
// (which means "pick one").
func runSeed(base int64, i int) int64 {
	z := uint64(base) + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	s := int64(z & (1<<53 - 1))
	if s == 0 {
		s = 1
	}
	return s
}
