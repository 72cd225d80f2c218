package logorder

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// groupLostBefore is the grouping as it was before issue 36 (one pass over
// the remaining items per value at the busiest offset, each survivor
// between two neighbours scanned): the reference groupLost must match.
func groupLostBefore(items, surv []lostItem) [][]lostItem {
	slices.SortFunc(surv, func(x, y lostItem) int { return cmp.Compare(x.off, y.off) })
	between := func(x, y lostItem) bool {
		lo := sort.Search(len(surv), func(i int) bool { return surv[i].off > x.off })
		from, to := min(x.ack, y.ack), max(x.ack, y.ack)
		for i := lo; i < len(surv) && surv[i].off < y.off; i++ {
			if surv[i].ack >= from && surv[i].ack <= to {
				return true
			}
		}
		return false
	}
	slices.SortFunc(items, func(x, y lostItem) int {
		return cmp.Or(cmp.Compare(x.epoch, y.epoch), cmp.Compare(x.off, y.off), cmp.Compare(x.ack, y.ack))
	})
	var out [][]lostItem
	for start := 0; start < len(items); {
		end := start
		for end < len(items) && items[end].epoch == items[start].epoch {
			end++
		}
		rest := items[start:end]
		for len(rest) > 0 {
			var pass, deferred []lostItem
			for _, it := range rest {
				if len(pass) == 0 || it.off > pass[len(pass)-1].off {
					pass = append(pass, it)
				} else {
					deferred = append(deferred, it)
				}
			}
			cur := []lostItem{pass[0]}
			for _, it := range pass[1:] {
				if between(cur[len(cur)-1], it) {
					out = append(out, cur)
					cur = nil
				}
				cur = append(cur, it)
			}
			out = append(out, cur)
			rest = deferred
		}
		start = end
	}
	slices.SortStableFunc(out, func(x, y []lostItem) int { return cmp.Compare(x[0].off, y[0].off) })
	return out
}

// TestGroupLostAsBefore: the linear grouping makes the ranges the
// per-value loop made, on hand-made shapes and on random ones (repeated
// offsets, several epochs, survivors acked inside and outside the lost
// sends' acks, equal acks).
func TestGroupLostAsBefore(t *testing.T) {
	it := func(send int32, off, ack int64, epoch int32) lostItem {
		return lostItem{send: send, off: off, ack: ack, epoch: epoch}
	}
	cases := []struct {
		name        string
		items, surv []lostItem
	}{
		{"nothing", nil, nil},
		{"one range", []lostItem{it(0, 1, 10, 1), it(1, 2, 11, 1), it(2, 3, 12, 1)}, nil},
		{"a survivor acked between ends the range", []lostItem{it(0, 1, 10, 1), it(1, 3, 12, 1)}, []lostItem{it(2, 2, 11, 0)}},
		{"a survivor acked after both does not", []lostItem{it(0, 1, 10, 1), it(1, 3, 12, 1)}, []lostItem{it(2, 2, 20, 0)}},
		{"a survivor acked at an end does", []lostItem{it(0, 1, 10, 1), it(1, 3, 12, 1)}, []lostItem{it(2, 2, 12, 0)}},
		{"two values at each offset: two passes", []lostItem{it(0, 1, 10, 1), it(1, 1, 20, 1), it(2, 2, 11, 1), it(3, 2, 21, 1)}, nil},
		{"epochs never share a range", []lostItem{it(0, 1, 10, 1), it(1, 2, 11, 2)}, nil},
		{"many values at one offset", func() []lostItem {
			var out []lostItem
			for i := range 50 {
				out = append(out, it(int32(i), 7, int64(100-i), 1))
			}
			return out
		}(), []lostItem{it(99, 3, 5, 0)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			compareGroupLost(t, c.items, c.surv)
		})
	}
	rng := rand.New(rand.NewPCG(36, 4))
	for n := range 400 {
		var items, surv []lostItem
		offs, acks := 1+rng.IntN(20), 1+rng.IntN(40)
		for i := range rng.IntN(60) {
			items = append(items, it(int32(i), int64(rng.IntN(offs)), int64(rng.IntN(acks)), int32(rng.IntN(3))))
		}
		for i := range rng.IntN(40) {
			surv = append(surv, it(int32(1000+i), int64(rng.IntN(offs)), int64(rng.IntN(acks)), -1))
		}
		t.Run(fmt.Sprint("random-", n), func(t *testing.T) { compareGroupLost(t, items, surv) })
	}
}

func compareGroupLost(t *testing.T, items, surv []lostItem) {
	t.Helper()
	want := groupLostBefore(slices.Clone(items), slices.Clone(surv))
	got := groupLost(slices.Clone(items), slices.Clone(surv))
	if len(got) != len(want) {
		t.Fatalf("%d ranges, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("range %d is %v, want %v", i, got[i], want[i])
		}
	}
}

// TestGroupLostLinear: 40,000 lost sends at one offset, and 20,000 at each
// of two offsets with 20,000 survivors between them acked inside the lost
// sends' acks, are grouped in well under a second (the per-value loop
// took tens of seconds; the generous bound keeps a loaded machine from
// failing it).
func TestGroupLostLinear(t *testing.T) {
	var one []lostItem
	for i := range 40000 {
		one = append(one, lostItem{send: int32(i), off: 0, ack: int64(i), epoch: -1})
	}
	var two, surv []lostItem
	for i := range 20000 {
		two = append(two, lostItem{send: int32(i), off: 0, ack: int64(2 * i), epoch: -1},
			lostItem{send: int32(20000 + i), off: 40001, ack: int64(2*i + 1), epoch: -1})
		surv = append(surv, lostItem{send: int32(40000 + i), off: int64(1 + 2*i), ack: 1 << 40})
	}
	for _, c := range []struct {
		name        string
		items, surv []lostItem
		ranges      int
	}{{"40,000 at one offset", one, nil, 40000}, {"two offsets, survivors between", two, surv, 20000}} {
		t.Run(c.name, func(t *testing.T) {
			start := cpuTime()
			out := groupLost(c.items, c.surv)
			if took := cpuTime() - start; took > 2*time.Second {
				t.Errorf("took %v of CPU", took)
			}
			if len(out) != c.ranges {
				t.Errorf("%d ranges, want %d", len(out), c.ranges)
			}
		})
	}
}
