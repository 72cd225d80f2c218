package checker

import (
	"fmt"
	"testing"
)

// subLatest is a subscribe of member m that starts at latest.
func subLatest(proc int, at int64, m string) []string {
	v := fmt.Sprintf(`{"group":"g","member":%q,"topic":"t","protocol":"classic","offset_reset":"latest"}`, m)
	return []string{ev(at, proc, "invoke", "subscribe", v), ev(at+1, proc, "ok", "subscribe", v)}
}

// TestGroupLatest: a group that starts at latest is excused only the
// records a member's reset could have put below its position (a record
// below its first delivery after an assignment with nothing committed,
// whose send was invoked no later than that poll returned; or below a
// commit it made before delivering); what was appended after is judged
// as for an earliest group.
func TestGroupLatest(t *testing.T) {
	ten := finalAll(900, 0, 10, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4", "0:5:v5", "0:6:v6", "0:7:v7", "0:8:v8", "0:9:v9")
	late := func(from, n int, at int64) []string { // v<from>.. acked at offsets from.., sends invoked from at on
		var out []string
		for i := range n {
			out = append(out, send(0, at+int64(i)*10, at+int64(i)*10+5, 0, fmt.Sprintf("v%d", from+i), "ok", int64(from+i))...)
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		lines       []string
		want        int   // lost-by-commit records
		first, last int64 // of the first entry
	}{{
		name: "records sent before the first delivery and below it: excused",
		lines: cat(late(0, 3, 0), subLatest(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil), late(3, 2, 112),
			gpoll(10, 140, 150, 1, "0:4:v4"), gcommit(10, 160, 170, 1, "ok", "0:5"), late(5, 5, 200), ten),
		want: 0,
	}, {
		name: "records sent after the first delivery returned, skipped and committed past: lost",
		lines: cat(late(0, 3, 0), subLatest(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:2:v2"), late(3, 4, 200), gpoll(10, 300, 310, 1, "0:7:v7"),
			gcommit(10, 320, 330, 1, "ok", "0:8"), late(8, 2, 400), ten),
		want: 4, first: 3, last: 6,
	}, {
		// m0 read 0-1 and left without committing; m1, assigned with
		// nothing committed, reset to the end (5) after v2-v4 were
		// written: skipping them is what latest does, not a loss.
		name: "a second member resets with nothing committed: what it skipped is excused",
		lines: cat(late(0, 2, 0), subLatest(10, 100, "m0"), subLatest(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), rebal(10, 140, 2, nil, []int{0}), late(2, 3, 200),
			rebal(11, 300, 3, []int{0}, nil), late(5, 1, 305), gpoll(11, 310, 320, 3, "0:5:v5"),
			gcommit(11, 330, 340, 3, "ok", "0:6"), late(6, 4, 400), ten),
		want: 0,
	}, {
		name: "a member that commits its reset position before delivering: the records below it are excused",
		lines: cat(late(0, 3, 0), subLatest(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gcommit(10, 120, 130, 1, "ok", "0:3"), late(3, 7, 200), gpoll(10, 300, 310, 1, "0:3:v3", "0:4:v4", "0:5:v5", "0:6:v6", "0:7:v7", "0:8:v8", "0:9:v9"),
			gcommit(10, 320, 330, 1, "ok", "0:10"), ten),
		want: 0,
	}, {
		name: "a member assigned after a commit resumes from it, no reset: what it commits past is lost",
		lines: cat(late(0, 1, 0), subLatest(10, 100, "m0"), subLatest(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), gcommit(10, 140, 150, 1, "ok", "0:1"), rebal(10, 160, 2, nil, []int{0}),
			rebal(11, 170, 2, []int{0}, nil), late(1, 9, 200), gcommit(11, 300, 310, 2, "ok", "0:4"),
			gpoll(11, 320, 330, 2, "0:4:v4", "0:5:v5", "0:6:v6", "0:7:v7", "0:8:v8", "0:9:v9"), ten),
		want: 3, first: 1, last: 3,
	}, {
		// After m0's first delivery (offset 3, at 130) and commit of 5,
		// an unclean election truncated the log to 2; w2-w6 were
		// written at 2-6 after m0's position was proven, m0 went on from
		// 5 and committed 7: w2-w4 were never delivered, as in an earliest
		// group.
		name: "records appended after the position was proven, below the first delivery (truncation): lost",
		lines: cat(late(0, 5, 0), subLatest(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:3:v3", "0:4:v4"), gcommit(10, 140, 150, 1, "ok", "0:5"),
			send(0, 200, 205, 0, "w2", "ok", 2), send(0, 210, 215, 0, "w3", "ok", 3), send(0, 220, 225, 0, "w4", "ok", 4),
			send(0, 230, 235, 0, "w5", "ok", 5), send(0, 240, 245, 0, "w6", "ok", 6),
			gpoll(10, 300, 310, 1, "0:5:w5", "0:6:w6"), gcommit(10, 320, 330, 1, "ok", "0:7"),
			finalAll(900, 0, 7, "0:0:v0", "0:1:v1", "0:2:w2", "0:3:w3", "0:4:w4", "0:5:w5", "0:6:w6")),
		want: 3, first: 2, last: 4,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCheck(t, lines2hist(tc.lines...), Options{})
			n := 0
			for _, e := range r.Anomalies.LostByCommit {
				n += e.Count
			}
			if n != tc.want {
				t.Fatalf("%d records lost by commit, want %d: %+v", n, tc.want, r.Anomalies.LostByCommit)
			}
			if tc.want > 0 {
				if e := r.Anomalies.LostByCommit[0]; e.FirstOffset != tc.first || e.LastOffset != tc.last {
					t.Errorf("first range %d-%d, want %d-%d: %s", e.FirstOffset, e.LastOffset, tc.first, tc.last, e.Text)
				}
			}
		})
	}
}
