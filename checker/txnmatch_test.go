package checker

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTxnManySends: a completion's send ops are matched to its invoke's
// sends (the first unmatched one naming the same partition and value)
// alike for a small txn, which is searched, and a large one, which is
// indexed; a txn of 40,000 sends is decoded in linear time.
func TestTxnManySends(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		extra string
		err   string
	}{
		{"small, reversed", 6, "", ""},
		{"large, reversed", 40, "", ""},
		{"small, a send its invoke lacks", 6, `{"f":"send","topic":"t","partition":0,"value":"nope","offset":9}`, "lists no such send"},
		{"large, a send its invoke lacks", 40, `{"f":"send","topic":"t","partition":0,"value":"nope","offset":9}`, "lists no such send"},
		{"large, a send listed twice", 40, `{"f":"send","topic":"t","partition":0,"value":"v0","offset":0}`, "lists no such send"},
		{"40,000 sends", 40000, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := lines2hist(txnManySends(c.n, c.extra)...)
			start := cpuTime()
			res, err := checkReader(strings.NewReader(h), Options{})
			if took := cpuTime() - start; took > 8*time.Second {
				t.Errorf("took %v of CPU", took)
			}
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("err %v, want one saying %q", err, c.err)
			case c.err == "" && err != nil:
				t.Fatal(err)
			case c.err == "" && (res.Valid != Valid || len(res.Counts) > 0):
				t.Fatalf("valid %v counts %v; reasons %q", res.Valid, res.Counts, res.Reasons)
			}
		})
	}
}

// txnManySends is a committed txn of n sends over partitions 0 and 1 whose
// completion lists them in reverse (extra: one more send op, appended),
// and a final read holding them all.
func txnManySends(n int, extra string) []string {
	var sends, recs []string
	for i := range n {
		sends = append(sends, fmt.Sprintf("%d:v%d:%d", i%2, i, i/2))
		recs = append(recs, fmt.Sprintf("%d:%d:v%d", i%2, i/2, i))
	}
	lines := okTx(1, 10, 20, "tx-1", sends...).lines()
	// Reverse the completion's ops: the matching must not rely on order.
	head, rest, _ := strings.Cut(lines[1], `"ops":[`)
	ops, tail, _ := strings.Cut(rest, "]}")
	list := strings.Split(ops, "},{")
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	for i := range list {
		list[i] = strings.Trim(list[i], "{}")
	}
	body := "{" + strings.Join(list, "},{") + "}"
	if extra != "" {
		body += "," + extra
	}
	lines[1] = head + `"ops":[` + body + "]}" + tail
	return cat(lines, fin01(100, map[int]int64{0: int64(n), 1: int64(n)}, recs...))
}
