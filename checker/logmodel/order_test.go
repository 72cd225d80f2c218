package logmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestRankTimesChangesNothing: renumbering the times to ranks (RankTimes)
// gives porcupine's verdict on the original times, on random model
// histories whose times are drawn from a few instants, so that calls and
// returns tie often, and on the model cases of TestLogModel.
func TestRankTimesChangesNothing(t *testing.T) {
	model := Model(func(v int32) string { return strconv.Itoa(int(v)) })
	rng := rand.New(rand.NewPCG(9, 9))
	seen := map[bool]int{}
	for i := range 3000 {
		ops := randomModelHistory(rng)
		want := porcupine.CheckOperations(model, ops)
		ranked := slices.Clone(ops)
		RankTimes(ranked)
		if got := porcupine.CheckOperations(model, ranked); got != want {
			t.Fatalf("history %d: ranked %v, original %v", i, got, want)
		}
		for j := range ops {
			if ranked[j].Call >= ranked[j].Return {
				t.Fatalf("history %d: op %d ranked call %d >= return %d", i, j, ranked[j].Call, ranked[j].Return)
			}
		}
		seen[want]++
	}
	if seen[true] < 300 || seen[false] < 300 {
		t.Fatalf("the generator is lopsided: %v", seen)
	}
}

// randomModelHistory: up to 6 appends (offsets drawn from 0..6, so some
// collide), up to 3 reads of some of them and maybe a final read, with
// times in 0..5 and returns possibly at Infinity.
func randomModelHistory(rng *rand.Rand) []porcupine.Operation {
	span := func() (int64, int64) {
		c := rng.Int64N(6)
		r := c + rng.Int64N(4)
		if rng.IntN(8) == 0 {
			r = Infinity
		}
		return c, r
	}
	n := 1 + rng.IntN(6)
	var ops []porcupine.Operation
	var ids []int32
	for i := range n {
		c, r := span()
		ops = append(ops, opAppend(int32(i), rng.Int64N(7), c, r))
		ids = append(ids, int32(i))
	}
	pick := func() []int32 {
		var out []int32
		for _, id := range ids {
			if rng.IntN(3) == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	for range rng.IntN(4) {
		c, r := span()
		if r == Infinity {
			r = c + 2
		}
		ops = append(ops, opRead(c, r, pick()...))
	}
	if rng.IntN(3) > 0 {
		c := rng.Int64N(6)
		ops = append(ops, opFinal(c, c+rng.Int64N(3), rng.Int64N(8), ids, pick()...))
	}
	rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	withPrev(ops)
	return ops
}

// TestSortEvs: the radix sort of RankTimes gives the order of compareEvs
// on long inputs (the radix path starts at 256 events) of every shape:
// distinct, tied, negative, open-ended (Infinity) and one-digit times.
func TestSortEvs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	cases := []struct {
		name string
		n    int
		time func(i int) int64
	}{
		{"short", 100, func(int) int64 { return rng.Int64N(1e9) }},
		{"distinct", 5000, func(int) int64 { return rng.Int64N(1 << 50) }},
		{"few instants", 5000, func(int) int64 { return rng.Int64N(5) }},
		{"one instant", 1000, func(int) int64 { return 7 }},
		{"negative", 3000, func(int) int64 { return rng.Int64N(1<<40) - 1<<39 }},
		{"open-ended", 3000, func(i int) int64 {
			if i%3 == 0 {
				return Infinity
			}
			return rng.Int64N(1e12)
		}},
		{"extremes", 1000, func(i int) int64 {
			return []int64{math.MinInt64, -1, 0, 1, math.MaxInt64, 1 << 32}[i%6]
		}},
		{"sorted", 2000, func(i int) int64 { return int64(i / 3) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs := make([]rankEv, tc.n)
			for i := range evs {
				evs[i] = rankEv{t: tc.time(i), off: rng.Int64N(10), i: int32(i / 2), ret: i%2 == 1, kind: uint8(rng.IntN(3))}
			}
			want := slices.Clone(evs)
			slices.SortFunc(want, compareEvs)
			sortEvs(evs)
			if !slices.Equal(evs, want) {
				t.Fatal("radix order differs from compareEvs")
			}
		})
	}
}
