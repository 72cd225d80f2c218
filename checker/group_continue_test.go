package checker

import (
	"maps"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/groupcheck"
)

// m0ReadsThree: member m0 (process 10) is assigned partition 0 in
// generation 1, reads offsets 0-2, and its commit of 1 ends info (the
// operation model retires p10; its client lives on).
var m0ReadsThree = cat(sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
	gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"), gcommit(10, 140, 150, 1, "info", "0:1"))

// TestGroupContinuedOrder: a process that continues a retired one's client
// (docs/HISTORY.md, "Consumer groups") keeps its poll order, and a
// redelivery by it is never a restart; no explanation claims a resume from
// the group's committed offset that the history does not show.
func TestGroupContinuedOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lines    []string
		opts     Options
		want     map[string]int
		cause    string   // of the first redelivery, if any
		has, not []string // in the first redelivery's text
	}{{
		name:  "a continued process goes back within the generation: nonmonotonic-poll",
		lines: cat(fiveAcked, m0ReadsThree, subCont(12, 160, "m0", 10), gpoll(12, 170, 180, 1, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{NonmonotonicPoll: 1, Redelivery: 1},
		cause: groupcheck.CauseSameGeneration, not: []string{"replaced", "resumed from the group's committed offset"},
	}, {
		name:  "a continued process skips an existing offset within the generation: poll-skip",
		lines: cat(fiveAcked, m0ReadsThree, subCont(12, 160, "m0", 10), gpoll(12, 170, 180, 1, "0:4:v4"), fiveFinal),
		want:  map[string]int{PollSkip: 1},
	}, {
		name:  "a continued process goes on where its client was: nothing",
		lines: cat(fiveAcked, m0ReadsThree, subCont(12, 160, "m0", 10), gpoll(12, 170, 180, 1, "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{},
	}, {
		name: "a continued process in a new generation starts afresh: a rebalance, not a restart",
		lines: cat(fiveAcked, m0ReadsThree, subCont(12, 160, "m0", 10),
			gpoll(12, 170, 180, 2, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{Redelivery: 1},
		cause: groupcheck.CauseRebalance, not: []string{"replaced", "resumed from the group's committed offset"},
	}, {
		name: "a continued process reassigned the partition in the generation: a rebalance",
		lines: cat(fiveAcked, m0ReadsThree, subCont(12, 160, "m0", 10), rebal(12, 165, 1, []int{0}, []int{0}),
			gpoll(12, 170, 180, 1, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{Redelivery: 1},
		cause: groupcheck.CauseRebalance, has: []string{"resumed at offset 1, with nothing committed"},
	}, {
		name: "a restarted member that resumed where nothing was committed: no claim of a committed offset",
		lines: cat(fiveAcked, m0ReadsThree, sub(12, 160, "m0"), rebal(12, 170, 2, []int{0}, nil),
			gpoll(12, 180, 190, 2, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{Redelivery: 1},
		cause: groupcheck.CauseRestart, has: []string{"replaced by p12", "resumed at offset 0, with nothing committed"},
		not: []string{"resumed from the group's committed offset"},
	}, {
		name: "a new owner that resumed above the committed offset: no claim that it resumed from it",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"), gcommit(10, 140, 150, 1, "ok", "0:1"),
			rebal(10, 160, 2, nil, []int{0}), rebal(11, 161, 2, []int{0}, nil),
			gpoll(11, 170, 180, 2, "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{Redelivery: 1},
		cause: groupcheck.CauseRebalance, has: []string{"resumed at offset 2, not at the group's committed offset 1"},
		not: []string{"resumed from the group's committed offset"},
	}, {
		name: "a new owner that resumed at the committed offset: said so",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"), gcommit(10, 140, 150, 1, "ok", "0:1"),
			rebal(10, 160, 2, nil, []int{0}), rebal(11, 161, 2, []int{0}, nil),
			gpoll(11, 170, 180, 2, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want:  map[string]int{Redelivery: 1},
		cause: groupcheck.CauseRebalance, has: []string{"resumed from the group's committed offset (offset 1, committed before)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCheck(t, lines2hist(tc.lines...), tc.opts)
			if got := groupCounts(r); !maps.Equal(got, tc.want) {
				t.Fatalf("counts %v, want %v; anomalies %+v", got, tc.want, r.Anomalies)
			}
			if tc.cause == "" {
				return
			}
			d := r.Anomalies.Redelivery[0]
			if d.Cause != tc.cause {
				t.Errorf("cause %q, want %q: %s", d.Cause, tc.cause, d.Text)
			}
			for _, w := range tc.has {
				if !strings.Contains(d.Text, w) {
					t.Errorf("text %q lacks %q", d.Text, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(d.Text, w) {
					t.Errorf("text %q claims %q", d.Text, w)
				}
			}
		})
	}
}
