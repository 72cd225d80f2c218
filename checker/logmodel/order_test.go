package logmodel

import (
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
