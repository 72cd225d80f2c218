package logorder

import (
	"cmp"
	"slices"
	"sort"
)

// lostRanges splits the lost sends of a partition into ranges. Sends acked
// in different leader epochs are different branches of the log and never
// share a range; within an epoch, sends are taken by offset, an offset seen
// twice starts another pass (two losses at the same offsets), and a send
// that survived between two lost ones, acked between them, ends a range.
func (a *run) lostRanges(tp int32, items []lostItem) [][]lostItem {
	c := a.c
	lostSet := map[int32]bool{}
	for _, it := range items {
		lostSet[it.send] = true
	}
	var surv []lostItem
	for _, i := range a.acked[tp] {
		if s := &c.Sends[i]; !lostSet[i] {
			surv = append(surv, lostItem{send: i, off: s.Off, ack: s.Ret})
		}
	}
	return groupLost(items, surv)
}

// groupLost is lostRanges on the lost items and the survivors (acked sends
// the final reads hold). It was once a loop that took one pass over the
// remaining items per value at the busiest offset, copying the rest each
// time: 40,000 unknown sends a poll saw at one offset took 46 s (issue 36).
// Pass k is the k-th item (by ack) at each offset of the epoch, so each
// pass is built by one walk over the offset groups; whether a survivor
// lies between two neighbours of a pass is counted for all pairs at once
// (between), so the whole grouping is O(n log n) in lost and surviving
// sends. The ranges are those of the per-value loop, in its order
// (TestGroupLostAsBefore compares them).
func groupLost(items, surv []lostItem) [][]lostItem {
	slices.SortFunc(surv, func(x, y lostItem) int { return cmp.Compare(x.off, y.off) })
	slices.SortFunc(items, func(x, y lostItem) int {
		return cmp.Or(cmp.Compare(x.epoch, y.epoch), cmp.Compare(x.off, y.off), cmp.Compare(x.ack, y.ack))
	})
	var passes [][]lostItem
	for start := 0; start < len(items); {
		end := start
		for end < len(items) && items[end].epoch == items[start].epoch {
			end++
		}
		first := len(passes)
		for i := start; i < end; {
			j := i
			for j < end && items[j].off == items[i].off {
				j++
			}
			for k := i; k < j; k++ {
				if first+k-i == len(passes) {
					passes = append(passes, nil)
				}
				passes[first+k-i] = append(passes[first+k-i], items[k])
			}
			i = j
		}
		start = end
	}
	cut := between(passes, surv)
	var out [][]lostItem
	for pi, pass := range passes {
		from := 0
		for i := 1; i < len(pass); i++ {
			if cut[pi][i] {
				out = append(out, pass[from:i:i])
				from = i
			}
		}
		out = append(out, pass[from:])
	}
	slices.SortStableFunc(out, func(x, y []lostItem) int { return cmp.Compare(x[0].off, y[0].off) })
	return out
}

// between reports, for each item i > 0 of each pass, whether a survivor
// lies strictly between the offsets of items i-1 and i and was acked
// between their acks (inclusive): the pair's range ends there. surv is
// sorted by offset. A pair with no survivor between its offsets (the
// common case) is answered by two binary searches; the others by one
// sweep over the survivors with a Fenwick tree of their acks' ranks, so
// that a pass spanning many survivors costs no more than a short one.
func between(passes [][]lostItem, surv []lostItem) [][]bool {
	cut := make([][]bool, len(passes))
	type query struct {
		lo, hi   int // survivors surv[lo:hi] lie between the pair's offsets
		from, to int // ack ranks: survivors acked in [from, to)
		pass, i  int
	}
	var qs []query
	var acks []int64
	for pi, pass := range passes {
		cut[pi] = make([]bool, len(pass))
		for i := 1; i < len(pass); i++ {
			x, y := pass[i-1], pass[i]
			lo := sort.Search(len(surv), func(k int) bool { return surv[k].off > x.off })
			hi := lo + sort.Search(len(surv)-lo, func(k int) bool { return surv[lo+k].off >= y.off })
			if lo >= hi {
				continue
			}
			if acks == nil {
				acks = make([]int64, len(surv))
				for k := range surv {
					acks[k] = surv[k].ack
				}
				slices.Sort(acks)
			}
			from, to := min(x.ack, y.ack), max(x.ack, y.ack)
			f, _ := slices.BinarySearch(acks, from)
			t := sort.Search(len(acks), func(k int) bool { return acks[k] > to })
			if f < t {
				qs = append(qs, query{lo: lo, hi: hi, from: f, to: t, pass: pi, i: i})
			}
		}
	}
	if len(qs) == 0 {
		return cut
	}
	// count(q) = P(hi) - P(lo), P(k) the survivors among surv[:k] acked in
	// [from, to): a sweep over k with the acks added so far in a Fenwick
	// tree over their ranks.
	type point struct {
		k, q int
		sign int
	}
	pts := make([]point, 0, 2*len(qs))
	for qi, q := range qs {
		pts = append(pts, point{q.lo, qi, -1}, point{q.hi, qi, +1})
	}
	slices.SortFunc(pts, func(x, y point) int { return cmp.Compare(x.k, y.k) })
	tree := make([]int, len(acks)+1)
	add := func(r int) {
		for r++; r < len(tree); r += r & -r {
			tree[r]++
		}
	}
	prefix := func(r int) int { // ranks below r
		n := 0
		for ; r > 0; r -= r & -r {
			n += tree[r]
		}
		return n
	}
	counts := make([]int, len(qs))
	added := 0
	for _, p := range pts {
		for ; added < p.k; added++ {
			r, _ := slices.BinarySearch(acks, surv[added].ack)
			add(r)
		}
		q := &qs[p.q]
		counts[p.q] += p.sign * (prefix(q.to) - prefix(q.from))
	}
	for qi, q := range qs {
		cut[q.pass][q.i] = counts[qi] > 0
	}
	return cut
}
