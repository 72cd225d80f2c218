package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestTxnTornShapes (issue 36 item 3): a txn is torn when some of its
// values are in the completed final reads and another is missing from a
// completed final read that should hold it, whichever read that is. Two
// shapes were missed: a later final read holding only the first of a
// committed txn's two values on a partition (an earlier one held both),
// and a read_committed read lacking a value that a read_uncommitted read
// holds (its commit marker is missing). Each missing value that a final
// read holds says which: "marker missing on" (in a read_uncommitted read,
// absent at read_committed) or "value lost on" (a read that should hold
// it lacks it); the near misses stay what they were.
func TestTxnTornShapes(t *testing.T) {
	ends := map[int]int64{0: 2, 1: 2}
	samePartition := okTx(1, 10, 20, "tx-1", "0:a:0", "0:b:1").lines()
	twoPartitions := okTx(1, 10, 20, "tx-1", "0:a:0", "1:b:0").lines()
	info := tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "info", endInv: 15, sends: []string{"0:a:0", "1:b:0"}}.lines()
	failed := tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "fail", endInv: 15, sends: []string{"0:a:0", "1:b:0"}}.lines()
	for _, c := range []struct {
		name   string
		lines  []string
		valid  Verdict
		counts map[string]int
		// the torn entry's text has text; its partitions' MarkerMissing
		// and Vanished lists are these (partition -> values)
		text             string
		marker, vanished map[int32][]string
	}{
		{"shape 1: a later read holds only the first of two values on a partition",
			cat(samePartition, fin01(100, ends, "0:0:a", "0:1:b"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a")),
			Invalid, map[string]int{TxnLostWrite: 1, TxnTorn: 1}, "t-0 present a, missing b; value lost on t-0 (b in a final read",
			nil, map[int32][]string{0: {"b"}}},
		{"shape 1, the reads the other way round: still torn",
			cat(samePartition, fin01(100, ends, "0:0:a"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a", "0:1:b")),
			Invalid, map[string]int{TxnLostWrite: 1, TxnTorn: 1}, "value lost on t-0",
			nil, map[int32][]string{0: {"b"}}},
		{"shape 2: read_committed lacks a value a later read_uncommitted read holds",
			cat(twoPartitions, rcFinal(9, 100, 105, ends, "0:0:a"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a", "1:0:b")),
			Invalid, map[string]int{TxnLostWrite: 1, TxnTorn: 1}, "t-1 missing b; marker missing on t-1 (b in a read_uncommitted final read, absent at read_committed)",
			map[int32][]string{1: {"b"}}, nil},
		{"shape 2, the read_uncommitted read first",
			cat(twoPartitions, fin01(100, ends, "0:0:a", "1:0:b"), rcFinal(8, 200, 205, ends, "0:0:a")),
			Invalid, map[string]int{TxnLostWrite: 1, TxnTorn: 1}, "marker missing on t-1",
			map[int32][]string{1: {"b"}}, nil},
		{"shape 2 for an info txn a read_committed read shows committed",
			cat(info, rcFinal(9, 100, 105, ends, "0:0:a"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a", "1:0:b")),
			Invalid, map[string]int{TxnTorn: 1}, "marker missing on t-1",
			map[int32][]string{1: {"b"}}, nil},
		{"read_committed lacks it, a read_uncommitted read too: lost, not the marker",
			cat(twoPartitions, fin01(100, ends, "0:0:a", "1:0:b"), rcFinal(8, 150, 155, ends, "0:0:a"), final(7, 200, 205, []int{0, 1}, ends, "ok", "0:0:a")),
			Invalid, map[string]int{TxnLostWrite: 1, TxnTorn: 1}, "value lost on t-1",
			nil, map[int32][]string{1: {"b"}}},
		{"in no final read at all: value lost",
			cat(twoPartitions, rcFinal(9, 100, 105, ends, "0:0:a")),
			Invalid, map[string]int{TxnLostWrite: 1, TxnTorn: 1}, "t-0 present a; t-1 missing b",
			nil, nil},
		// Near misses.
		{"committed txn fully present in both reads",
			cat(twoPartitions, rcFinal(9, 100, 105, ends, "0:0:a", "1:0:b"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a", "1:0:b")),
			Valid, nil, "", nil, nil},
		{"committed txn in an earlier read, absent as a whole from a later one: lost, not torn",
			cat(twoPartitions, fin01(100, ends, "0:0:a", "1:0:b"), final(8, 200, 205, []int{0, 1}, ends, "ok")),
			Invalid, map[string]int{TxnLostWrite: 2}, "", nil, nil},
		{"aborted txn partly visible at read_committed: an aborted read, not torn",
			cat(failed, rcFinal(9, 100, 105, ends, "0:0:a"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a", "1:0:b")),
			Invalid, map[string]int{TxnAbortedRead: 1}, "", nil, nil},
		{"held back past the read_committed read's end (an open txn): not missing",
			cat(twoPartitions, rcFinal(9, 100, 105, map[int]int64{0: 2, 1: 0}, "0:0:a"), final(8, 200, 205, []int{0, 1}, ends, "ok", "0:0:a", "1:0:b")),
			Valid, nil, "", nil, nil},
		{"info txn half in a read_uncommitted read, no read_committed one: maybe aborted",
			cat(info, fin01(100, ends, "0:0:a")),
			Unknown, nil, "", nil, nil}, // not torn; unknown as nothing was acknowledged (nothingAcked)
	} {
		t.Run(c.name, func(t *testing.T) {
			res := mustCheck(t, lines2hist(c.lines...), Options{})
			if res.Valid != c.valid || !maps.Equal(res.Counts, c.counts) {
				t.Fatalf("valid %v counts %v, want %v %v; reasons %q", res.Valid, res.Counts, c.valid, c.counts, res.Reasons)
			}
			torn := res.Anomalies.TxnTorn
			if c.counts[TxnTorn] == 0 {
				return
			}
			if !strings.Contains(torn[0].Text, c.text) {
				t.Errorf("text %q lacks %q", torn[0].Text, c.text)
			}
			if !slices.ContainsFunc(res.Explanations, func(e Explanation) bool { return e.Text == torn[0].Text }) {
				t.Errorf("no explanation says %q", torn[0].Text)
			}
			if c.marker == nil && c.vanished == nil && (strings.Contains(torn[0].Text, "marker missing") || !strings.Contains(torn[0].Text, "in no final read")) {
				t.Errorf("text %q does not say the value is in no final read (lost, not a missing marker)", torn[0].Text)
			}
			for _, p := range torn[0].Partitions {
				if !slices.Equal(p.MarkerMissing, c.marker[p.Partition]) || !slices.Equal(p.Vanished, c.vanished[p.Partition]) {
					t.Errorf("t-%d: marker missing %q, vanished %q; want %q, %q", p.Partition, p.MarkerMissing, p.Vanished,
						c.marker[p.Partition], c.vanished[p.Partition])
				}
			}
		})
	}
}

// TestTxnTornManyPartitions: a txn over more partitions than are searched
// per send (they are indexed then) is judged per partition alike.
func TestTxnTornManyPartitions(t *testing.T) {
	var sends, held []string
	var ps []int
	ends := map[int]int64{}
	for p := range 20 {
		sends = append(sends, fmt.Sprintf("%d:v%d:0", p, p))
		ps, ends[p] = append(ps, p), 1
		if p != 17 {
			held = append(held, fmt.Sprintf("%d:0:v%d", p, p))
		}
	}
	res := mustCheck(t, lines2hist(cat(okTx(1, 10, 20, "tx-1", sends...).lines(), final(9, 100, 105, ps, ends, "ok", held...))...), Options{})
	if want := map[string]int{TxnLostWrite: 1, TxnTorn: 1}; !maps.Equal(res.Counts, want) {
		t.Fatalf("counts %v, want %v", res.Counts, want)
	}
	parts := res.Anomalies.TxnTorn[0].Partitions
	if len(parts) != 20 || parts[17].Partition != 17 || !slices.Equal(parts[17].Missing, []string{"v17"}) ||
		!slices.Equal(parts[16].Present, []string{"v16"}) || !slices.Equal(parts[18].Present, []string{"v18"}) {
		t.Errorf("partitions %+v", parts)
	}
}
