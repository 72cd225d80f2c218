package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/groupcheck"
)

// TestGroupOutsideAssignment: a member's poll that delivers records of a
// partition its client did not hold (histories.Holdings' rule) is a
// delivery-outside-assignment, per poll and partition; information under
// at-least-once, against validity under a declared exactly-once.
func TestGroupOutsideAssignment(t *testing.T) {
	pause := []string{ev(150, -1, "invoke", "pause", `{"fault":"pause","nodes":[1]}`), ev(152, -1, "ok", "pause", `{"fault":"pause","nodes":[1]}`)}
	lost := `{"group":"g","member_id":"m","generation":2,"topic":"t","assigned":[],"revoked":[],"lost":[0]}`
	for _, tc := range []struct {
		name  string
		lines []string
		opts  Options
		want  int // entries
		valid Verdict
		check func(t *testing.T, e groupcheck.OutsideAssignmentEntry)
	}{{
		name:  "delivered after its assignment: nothing",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil), gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), fiveFinal),
		want:  0, valid: Valid,
	}, {
		name:  "delivered with no assignment recorded",
		lines: cat(fiveAcked, sub(10, 100, "m0"), gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), fiveFinal),
		want:  1, valid: Valid,
		check: func(t *testing.T, e groupcheck.OutsideAssignmentEntry) {
			if e.Process != 10 || e.Member != "m0" || e.Generation == nil || *e.Generation != 1 || e.Partition != 0 ||
				e.FirstOffset != 0 || e.LastOffset != 1 || e.Count != 2 || !slices.Equal(e.Values, []string{"v0", "v1"}) ||
				!slices.Equal(e.Offsets, []int64{0, 1}) || e.TakenBy != nil || len(e.Held) != 0 {
				t.Errorf("entry %+v: want p10 (m0, generation 1), t-0 offsets 0-1, v0 v1, never assigned", e)
			}
			for _, w := range []string{"p10 (member m0, generation 1)", "offsets 0-1", "(it held none)", "no rebalance of its client had assigned it"} {
				if !strings.Contains(e.Text, w) {
					t.Errorf("text %q lacks %q", e.Text, w)
				}
			}
		},
	}, {
		name:  "under a declared exactly-once it counts",
		lines: cat(fiveAcked, sub(10, 100, "m0"), gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), fiveFinal),
		opts:  Options{ExactlyOnce: true},
		want:  1, valid: Invalid,
	}, {
		name: "a zombie: delivered after the revoke, while another member held it, a fault between",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), rebal(10, 140, 2, nil, []int{0}), rebal(11, 141, 2, []int{0}, nil), pause,
			gpoll(10, 160, 170, 2, "0:1:v1", "0:2:v2"), fiveFinal),
		want: 1, valid: Valid,
		check: func(t *testing.T, e groupcheck.OutsideAssignmentEntry) {
			if r := e.TakenBy; r == nil || r.Kind != "revoked" || r.Process != 10 || r.Generation == nil || *r.Generation != 2 {
				t.Errorf("taken by %+v: want the revoke of generation 2 by p10", r)
			}
			if !slices.Equal(e.HeldBy, []string{"p11 (member m1)"}) || len(e.Faults) != 1 || e.Faults[0].F != "pause" {
				t.Errorf("entry %+v: want held by p11 (m1), the pause between", e)
			}
			for _, w := range []string{"revoked it from p10", "held then by p11 (member m1)", "pause"} {
				if !strings.Contains(e.Text, w) {
					t.Errorf("text %q lacks %q", e.Text, w)
				}
			}
		},
	}, {
		name: "delivered after the partition was lost",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil), gpoll(10, 120, 130, 1, "0:0:v0"),
			[]string{ev(140, 10, "invoke", "rebalance", lost), ev(140, 10, "ok", "rebalance", lost)},
			gpoll(10, 160, 170, 2, "0:1:v1"), fiveFinal),
		want: 1, valid: Valid,
		check: func(t *testing.T, e groupcheck.OutsideAssignmentEntry) {
			if e.TakenBy == nil || e.TakenBy.Kind != "lost" {
				t.Errorf("taken by %+v: want lost", e.TakenBy)
			}
		},
	}, {
		name: "a poll of a held and an unheld partition: only the unheld one",
		lines: cat(fiveAcked, send(1, 50, 55, 1, "w0", "ok", 0), sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "1:0:w0"), fiveFinal, final(98, 950, 960, []int{1}, map[int]int64{1: 1}, "ok", "1:0:w0")),
		want: 1, valid: Valid,
		check: func(t *testing.T, e groupcheck.OutsideAssignmentEntry) {
			if e.Partition != 1 || e.Count != 1 || !slices.Equal(e.Held, []string{"t-0"}) || !strings.Contains(e.Text, "(it held t-0)") {
				t.Errorf("entry %+v: want t-1 only, t-0 held", e)
			}
		},
	}, {
		name: "a process that continues its client holds what it held",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil), gpoll(10, 120, 130, 1, "0:0:v0"),
			gcommit(10, 140, 150, 1, "info", "0:1"), subCont(12, 160, "m0", 10), gpoll(12, 170, 180, 1, "0:1:v1"), fiveFinal),
		want: 0, valid: Valid,
	}, {
		name: "a new client of the member holds nothing until its own rebalance",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil), gpoll(10, 120, 130, 1, "0:0:v0"),
			gcommit(10, 140, 150, 1, "info", "0:1"), sub(12, 160, "m0"), gpoll(12, 170, 180, 1, "0:1:v1"), fiveFinal),
		want: 1, valid: Valid,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCheck(t, lines2hist(tc.lines...), tc.opts)
			got := r.Anomalies.DeliveryOutsideAssignment
			if len(got) != tc.want || r.Counts[DeliveryOutsideAssignment] != tc.want {
				t.Fatalf("%d entries (count %d), want %d: %+v", len(got), r.Counts[DeliveryOutsideAssignment], tc.want, got)
			}
			if r.Valid != tc.valid {
				t.Errorf("verdict %v, want %v: %v", r.Valid, tc.valid, r.Reasons)
			}
			if tc.want > 0 && !tc.opts.ExactlyOnce && !slices.ContainsFunc(r.Reasons, func(s string) bool {
				return strings.HasPrefix(s, "delivery-outside-assignment: ") && strings.Contains(s, "not counted")
			}) {
				t.Errorf("reasons %v: want the not-counted note", r.Reasons)
			}
			if tc.check != nil {
				tc.check(t, got[0])
			}
		})
	}
}
