package checker

import (
	"fmt"
	"strings"
	"testing"
)

// TestOrderAnomaliesExplained: every value or order anomaly that counts
// against the verdict is explained in words (results.json's explanations,
// the CLI summary, the report), naming its values, offsets, processes
// and the fault before, as the lost writes are; one that does not count
// (a duplicate of a producer that was not idempotent) is not. Before,
// only lost-write and offset-reuse were: a run invalid by 32
// nonmonotonic-send read "nonmonotonic-send: 32" and nothing more.
func TestOrderAnomaliesExplained(t *testing.T) {
	kill := []string{ev(15, -1, "invoke", "kill", `{"fault":"kill","nodes":[0]}`), ev(16, -1, "ok", "kill", `{"fault":"kill","nodes":[0]}`)}
	var four []string
	for i := range 4 {
		four = append(four, send(0, int64(10+2*i), int64(11+2*i), 0, fmt.Sprintf("v%d", i), "ok", int64(i))...)
	}
	fin4 := final(9, 100, 110, []int{0}, map[int]int64{0: 4}, "ok", "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3")
	// Process 0's first ack is at offset 1, its second at offset 0: the
	// record at 1 was lost and offset 1 reused by another process.
	backwards := cat(send(0, 10, 11, 0, "a", "ok", 1), kill, send(0, 20, 21, 0, "b", "ok", 0), send(1, 22, 23, 0, "c", "ok", 1),
		final(9, 100, 110, []int{0}, map[int]int64{0: 2}, "ok", "0:0:b", "0:1:c"))
	cases := []struct {
		name  string
		lines []string
		opts  Options
		kind  string
		want  []string // substrings of the kind's one explanation
		none  bool     // the kind is found but does not count: no explanation
	}{
		{"nonmonotonic-send, idempotent", backwards, Options{Idempotent: true}, NonmonotonicSend,
			[]string{"t-0: 1 send acked below the same process's previous ack (nonmonotonic-send)",
				"b at offset 0 (p0, 0.0 s) after a at offset 1", "the earlier acks: 1 of 1 lost (lost-write), 1 of 1 at offsets since reused (offset-reuse)",
				"after kill [0] at 0.0 s"}, false},
		{"nonmonotonic-send, not idempotent", backwards, Options{}, NonmonotonicSend, nil, true},
		{"duplicate, idempotent", cat(send(0, 10, 11, 0, "a", "ok", 0), final(9, 100, 110, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a", "0:1:a")),
			Options{Idempotent: true}, Duplicate,
			[]string{"t-0: 1 value in the log more than once (duplicate): a at offsets 0, 1 (acked at offset 0, p0"}, false},
		{"duplicate, not idempotent", cat(send(0, 10, 11, 0, "a", "ok", 0), final(9, 100, 110, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a", "0:1:a")),
			Options{}, Duplicate, nil, true},
		{"aborted-read", cat(send(0, 10, 11, 0, "a", "ok", 0), kill, send(1, 21, 22, 0, "f", "fail", -1, "NOT_ENOUGH_REPLICAS"),
			final(9, 30, 40, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a", "0:1:f")),
			Options{}, AbortedRead, []string{"t-0: 1 value of failed sends read (aborted-read): f at offset 1 (fail NOT_ENOUGH_REPLICAS, p1)", "after kill [0]"}, false},
		{"unexpected", cat(send(0, 10, 20, 0, "a", "ok", 0), final(9, 30, 40, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a", "0:1:zz")),
			Options{}, Unexpected, []string{"t-0: 1 value read that no send wrote (unexpected): zz at offset 1"}, false},
		{"poll-skip", cat(four, poll(5, 30, 40, []int{0}, "0:0:v0", "0:2:v2"), fin4), Options{}, PollSkip,
			[]string{"t-0: 1 poll skipped records the final read holds (poll-skip): p5 at 0.0 s read offset 2 (v2) after offset 0 (v0), skipping 1 record (1 v1)"}, false},
		{"nonmonotonic-poll", cat(four, poll(5, 30, 40, []int{0}, "0:1:v1", "0:0:v0"), fin4), Options{}, NonmonotonicPoll,
			[]string{"t-0: 1 poll began at or before the same process's last offset read (nonmonotonic-poll): p5 at 0.0 s read offset 0 (v0) after offset 1 (v1)",
				"the records read before: none lost, no offset reused"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustCheck(t, lines2hist(c.lines...), c.opts)
			if res.Counts[c.kind] == 0 {
				t.Fatalf("no %s found: counts %v, reasons %q", c.kind, res.Counts, res.Reasons)
			}
			var texts []string
			for _, e := range res.Explanations {
				if e.Kind == c.kind {
					texts = append(texts, e.Text)
				}
			}
			if c.none {
				if len(texts) > 0 {
					t.Errorf("%s does not count here, yet it is explained: %q", c.kind, texts)
				}
				return
			}
			if len(texts) != 1 {
				t.Fatalf("%d explanations of %s, want 1: %q", len(texts), c.kind, texts)
			}
			for _, w := range c.want {
				if !strings.Contains(texts[0], w) {
					t.Errorf("explanation lacks %q:\n%s", w, texts[0])
				}
			}
			if !strings.Contains(res.Summary(), texts[0]) {
				t.Errorf("the summary does not print the explanation:\n%s", res.Summary())
			}
		})
	}
}

// TestOrderExplanationsBounded: a partition with many entries of one kind
// gets one explanation naming a few, its offsets listed up to the bound
// and counted in full.
func TestOrderExplanationsBounded(t *testing.T) {
	var lines []string
	var read []string
	n := 60
	for i := range n {
		lines = append(lines, send(i, int64(10+i), int64(11+i), 0, fmt.Sprintf("v%d", i), "ok", int64(i))...)
		read = append(read, fmt.Sprintf("0:%d:v%d", i, i))
	}
	// One poll per value, each skipping one record ahead of the last.
	for i := 2; i < n; i += 2 {
		lines = append(lines, poll(100+i, int64(200+i), int64(201+i), []int{0}, fmt.Sprintf("0:%d:v%d", i-2, i-2), fmt.Sprintf("0:%d:v%d", i, i))...)
	}
	lines = append(lines, final(99, 400, 410, []int{0}, map[int]int64{0: int64(n)}, "ok", read...)...)
	res := mustCheck(t, lines2hist(lines...), Options{})
	var got []Explanation
	for _, e := range res.Explanations {
		if e.Kind == PollSkip {
			got = append(got, e)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d poll-skip explanations, want 1", len(got))
	}
	e := got[0]
	if e.Count != res.Counts[PollSkip] || e.Count != n/2-1 {
		t.Errorf("count %d, want %d (the entries: %d)", e.Count, n/2-1, res.Counts[PollSkip])
	}
	if len(e.Offsets) != 20 || len(e.Values) != 20 {
		t.Errorf("%d offsets and %d values listed, want 20 each", len(e.Offsets), len(e.Values))
	}
	if e.FirstOffset != 2 || e.LastOffset != int64(n-2) {
		t.Errorf("span %d-%d, want 2-%d", e.FirstOffset, e.LastOffset, n-2)
	}
	if !strings.Contains(e.Text, fmt.Sprintf("and %d more", n/2-1-3)) {
		t.Errorf("the text does not say how many more: %s", e.Text)
	}
}
