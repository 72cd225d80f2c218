package checker

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/groupcheck"
)

// five acked sends v0..v4 at offsets 0..4 of partition 0, and a final read
// holding them all.
var (
	fiveAcked = acks(0, 0, 0, 5, "v")
	fiveFinal = finalAll(900, 0, 5, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4")
	// m1 (process 11) is assigned partition 0 and reads offsets 0-3.
	m1ReadsFour = cat(rebal(11, 104, 1, []int{0}, nil), gpoll(11, 105, 108, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3"))
)

func groupCounts(r *Result) map[string]int {
	out := map[string]int{}
	for _, k := range []string{LostByCommit, CommitBackwards, Redelivery, NonmonotonicPoll, PollSkip} {
		if n := r.Counts[k]; n > 0 {
			out[k] = n
		}
	}
	return out
}

func TestGroupChecks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		opts  Options
		want  map[string]int
		valid Verdict
		check func(t *testing.T, r *Result)
	}{{
		name: "commit past undelivered records: lost by commit",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), gcommit(10, 140, 150, 1, "ok", "0:4"), fiveFinal),
		want: map[string]int{LostByCommit: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.LostByCommit[0]
			if e.Group != "g" || e.FirstOffset != 2 || e.LastOffset != 3 || e.Count != 2 || !slices.Equal(e.Values, []string{"v2", "v3"}) {
				t.Errorf("entry %+v: want group g, offsets 2-3, values v2 v3", e)
			}
			if c := e.Commit; c.Index != 16 || c.Process != 10 || c.Member != "m0" || c.Offset != 4 || c.Generation == nil || *c.Generation != 1 {
				t.Errorf("commit %+v: want index 16 by p10 (m0), generation 1, offset 4", c)
			}
			if e.Commit.LeaderEpoch != nil {
				t.Errorf("commit %+v: a leader epoch the history does not record", e.Commit)
			}
			if d := e.LastDelivered; d == nil || d.Offset != 1 || d.Process != 10 {
				t.Errorf("last delivered %+v: want offset 1 by p10", d)
			}
			for _, w := range []string{"m0", "generation 1", "offset 4", "2-3", "never delivered"} {
				if !strings.Contains(e.Text, w) {
					t.Errorf("text %q lacks %q", e.Text, w)
				}
			}
		},
	}, {
		name: "lost by a commit without a leader epoch: the entry says so (KAFKA-20507)",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), withEpochs(gcommit(10, 140, 150, 1, "ok", "0:4"), `{"0":-1}`), fiveFinal),
		want: map[string]int{LostByCommit: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.LostByCommit[0]
			if c := e.Commit; c.LeaderEpoch == nil || *c.LeaderEpoch != -1 {
				t.Errorf("commit %+v: want leader epoch -1", c)
			}
			if !strings.Contains(e.Text, "no leader epoch") || !strings.Contains(e.Text, "KAFKA-20507") {
				t.Errorf("text %q: want the commit's missing leader epoch named", e.Text)
			}
		},
	}, {
		name: "lost by a commit with a leader epoch: the epoch, no KAFKA-20507",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), withEpochs(gcommit(10, 140, 150, 1, "ok", "0:4"), `{"0":3}`), fiveFinal),
		want: map[string]int{LostByCommit: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.LostByCommit[0]
			if c := e.Commit; c.LeaderEpoch == nil || *c.LeaderEpoch != 3 {
				t.Errorf("commit %+v: want leader epoch 3", c)
			}
			if strings.Contains(e.Text, "KAFKA-20507") {
				t.Errorf("text %q names KAFKA-20507 for a commit with an epoch", e.Text)
			}
		},
	}, {
		name: "every record below the commit delivered: no loss",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3"), gcommit(10, 140, 150, 1, "ok", "0:4"), fiveFinal),
		want: map[string]int{}, valid: Valid,
	}, {
		name: "a failed commit commits nothing",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), gcommit(10, 140, 150, 1, "fail", "0:4"), fiveFinal),
		want: map[string]int{}, valid: Valid,
	}, {
		name: "an unknown commit proves no loss",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), gcommit(10, 140, 150, 1, "info", "0:4"), fiveFinal),
		want: map[string]int{}, valid: Valid,
	}, {
		name: "a record the log does not hold is no loss by commit",
		lines: cat(acks(0, 0, 0, 3, "v"), sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), gcommit(10, 140, 150, 1, "ok", "0:3"),
			// v1 is gone from the log (a lost write), v2 is there.
			finalAll(900, 0, 3, "0:0:v0", "0:2:v2")),
		want: map[string]int{LostByCommit: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			if e := r.Anomalies.LostByCommit[0]; e.FirstOffset != 2 || e.Count != 1 {
				t.Errorf("entry %+v: want offset 2 only", e)
			}
			if r.Counts[LostWrite] != 1 {
				t.Errorf("lost-write %d, want 1 (v1)", r.Counts[LostWrite])
			}
		},
	}, {
		name: "no completed final read: not judged",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), gcommit(10, 140, 150, 1, "ok", "0:4")),
		want: map[string]int{}, valid: Unknown,
	}, {
		name: "delivered by another member of the group: no loss",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), rebal(10, 140, 2, nil, []int{0}), rebal(11, 141, 2, []int{0}, nil),
			gpoll(11, 150, 160, 2, "0:2:v2", "0:3:v3"), gcommit(11, 170, 180, 2, "ok", "0:4"), fiveFinal),
		want: map[string]int{}, valid: Valid,
	}, {
		name: "committed offset went back: resumed below an ok commit",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3"), gcommit(10, 140, 150, 1, "ok", "0:4"),
			[]string{ev(160, -1, "invoke", "elect-unclean", `{"fault":"elect-unclean","nodes":[1],"details":{"topic":"__consumer_offsets"}}`),
				ev(165, -1, "ok", "elect-unclean", `{"fault":"elect-unclean","nodes":[1],"details":{"topic":"__consumer_offsets"}}`)},
			sub(11, 170, "m1"), rebal(10, 180, 2, nil, []int{0}), rebal(11, 181, 2, []int{0}, nil),
			gpoll(11, 190, 200, 2, "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{CommitBackwards: 1, Redelivery: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.CommitBackwards[0]
			if e.Kind != groupcheck.ResumedBelowCommit || e.Committed != 4 || e.Resumed != 2 || e.By != 2 || e.Commit.Index != 16 {
				t.Errorf("entry %+v: want resumed at 2 below the commit of 4 (index 16), by 2", e)
			}
			if len(e.Faults) != 1 || e.Faults[0].F != "elect-unclean" {
				t.Errorf("faults %+v: want the elect-unclean between the commit and the resume", e.Faults)
			}
			for _, w := range []string{"by 2", "__consumer_offsets", "elect-unclean", "m1"} {
				if !strings.Contains(e.Text, w) {
					t.Errorf("text %q lacks %q", e.Text, w)
				}
			}
			d := r.Anomalies.Redelivery[0]
			if d.FirstOffset != 2 || d.LastOffset != 3 || d.Count != 2 || d.Cause != groupcheck.CauseCommitBackwards {
				t.Errorf("redelivery %+v: want 2-3 caused by the commit going back", d)
			}
		},
	}, {
		name: "a commit completed after the rebalance is not what the new owner could resume from",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3"), sub(11, 135, "m1"),
			[]string{ev(140, 10, "invoke", "commit", `{"group":"g","member_id":"m","generation":1,"topic":"t","offsets":{"0":4}}`)},
			rebal(11, 145, 2, []int{0}, nil),
			[]string{ev(150, 10, "ok", "commit", `{"group":"g","member_id":"m","generation":1,"topic":"t","offsets":{"0":4}}`)},
			gpoll(11, 160, 170, 2, "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{Redelivery: 1}, valid: Valid,
	}, {
		name: "an ok commit lower than an earlier one",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3"), gcommit(10, 140, 150, 1, "ok", "0:4"),
			gcommit(10, 160, 170, 1, "ok", "0:2"), fiveFinal),
		want: map[string]int{CommitBackwards: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.CommitBackwards[0]
			if e.Kind != groupcheck.CommittedLower || e.Committed != 4 || e.Resumed != 2 || e.By != 2 || e.Lower == nil || e.Lower.Index != 18 {
				t.Errorf("entry %+v: want the commit of 2 (index 18) below the commit of 4", e)
			}
		},
	}, {
		// The real run's case: m0 (stalled) reported its auto commit of 2
		// after m1, the next owner, had resumed at 2 and committed 4; the
		// coordinator applied m0's commit first (generation 1 before 2).
		name: "an auto commit reported after a higher commit is not lower than it: it was in flight",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"),
			rebal(11, 150, 2, []int{0}, nil), gpoll(11, 160, 170, 2, "0:2:v2", "0:3:v3"),
			gcommit(11, 180, 190, 2, "ok", "0:4"), gauto(10, 200, 1, "0:2"), fiveFinal),
		want: map[string]int{}, valid: Valid,
	}, {
		name: "an auto commit lower than a commit completed before the poll it commits from",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), m1ReadsFour, rebal(10, 110, 1, []int{0}, nil),
			gcommit(11, 112, 118, 1, "ok", "0:4"), gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"),
			gauto(10, 140, 1, "0:2"), fiveFinal),
		want: map[string]int{CommitBackwards: 1, Redelivery: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.CommitBackwards[0]
			if e.Kind != groupcheck.CommittedLower || e.Committed != 4 || e.Resumed != 2 || e.Lower == nil || !e.Lower.Auto || e.Commit.Process != 11 {
				t.Errorf("entry %+v: want m0's auto commit of 2 below m1's commit of 4", e)
			}
		},
	}, {
		name: "an auto commit at an offset no poll of its process ended at is not judged",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), m1ReadsFour, rebal(10, 110, 1, []int{0}, nil),
			gcommit(11, 112, 118, 1, "ok", "0:4"), gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"),
			gauto(10, 140, 1, "0:2"), fiveFinal),
		want: map[string]int{Redelivery: 1}, valid: Valid,
	}, {
		// p10's commit ended info before its first delivery; p12 goes on
		// with the same client (continues), so its first delivery is
		// still where the group resumed the partition p10 was assigned.
		name: "a process that continues a retired one's client resumes below the commit: commit-backwards",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), m1ReadsFour, gcommit(11, 109, 109, 1, "ok", "0:4"),
			rebal(11, 110, 2, nil, []int{0}), rebal(10, 111, 2, []int{0}, nil), gcommit(10, 112, 115, 2, "info", "0:0"),
			subCont(12, 116, "m0", 10), gpoll(12, 120, 130, 2, "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{CommitBackwards: 1, Redelivery: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			e := r.Anomalies.CommitBackwards[0]
			if e.Kind != groupcheck.ResumedBelowCommit || e.Committed != 4 || e.Resumed != 2 || e.Member == nil || e.Member.Process != 12 {
				t.Errorf("entry %+v: want p12 resuming at 2 below the commit of 4", e)
			}
		},
	}, {
		name: "redelivery after a rebalance: information under at-least-once",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"), gcommit(10, 140, 150, 1, "ok", "0:1"),
			rebal(10, 160, 2, nil, []int{0}), rebal(11, 161, 2, []int{0}, nil),
			gpoll(11, 170, 180, 2, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{Redelivery: 1}, valid: Valid,
		check: func(t *testing.T, r *Result) {
			d := r.Anomalies.Redelivery[0]
			if d.FirstOffset != 1 || d.LastOffset != 2 || d.Count != 2 || d.Cause != groupcheck.CauseRebalance ||
				d.First.Process != 10 || d.Again.Process != 11 || d.Again.Generation == nil || *d.Again.Generation != 2 {
				t.Errorf("redelivery %+v: want 1-2 first by p10, again by p11 in generation 2, after a rebalance", d)
			}
			if !strings.Contains(d.Text, "generation 2") || !strings.Contains(d.Text, "offset 1") {
				t.Errorf("text %q: want the generation and the committed offset it resumed from", d.Text)
			}
			if s := r.Stats.Groups; s == nil || s.Redelivered != 2 || s.Delivered != 7 || s.Rebalances != 3 {
				t.Errorf("stats %+v: want 7 delivered, 2 redelivered, 3 rebalances", s)
			}
		},
	}, {
		name: "redelivery under declared exactly-once counts",
		lines: cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"), gcommit(10, 140, 150, 1, "ok", "0:1"),
			rebal(10, 160, 2, nil, []int{0}), rebal(11, 161, 2, []int{0}, nil),
			gpoll(11, 170, 180, 2, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		opts: Options{ExactlyOnce: true},
		want: map[string]int{Redelivery: 1}, valid: Invalid,
	}, {
		name: "redelivery after a restart of the member",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1"), gcommit(10, 140, 150, 1, "info", "0:2"),
			sub(12, 160, "m0"), rebal(12, 170, 2, []int{0}, nil),
			gpoll(12, 180, 190, 2, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{Redelivery: 1}, valid: Valid,
		check: func(t *testing.T, r *Result) {
			if d := r.Anomalies.Redelivery[0]; d.Cause != groupcheck.CauseRestart || d.Count != 2 || !strings.Contains(d.Text, "p10") {
				t.Errorf("redelivery %+v: want 2 after member m0's restart (p10 replaced)", d)
			}
		},
	}, {
		name: "a rebalance resets the member's poll order",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"), rebal(10, 140, 2, []int{0}, []int{0}),
			gpoll(10, 150, 160, 2, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{Redelivery: 1}, valid: Valid,
	}, {
		name: "a new generation in a poll resets the member's poll order",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"),
			gpoll(10, 150, 160, 2, "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), fiveFinal),
		want: map[string]int{Redelivery: 1}, valid: Valid,
	}, {
		name: "within a generation the poll order rules hold",
		lines: cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2"),
			gpoll(10, 150, 160, 1, "0:1:v1", "0:2:v2"), gpoll(10, 170, 180, 1, "0:4:v4"), fiveFinal),
		want: map[string]int{Redelivery: 1, NonmonotonicPoll: 1, PollSkip: 1}, valid: Invalid,
		check: func(t *testing.T, r *Result) {
			if d := r.Anomalies.Redelivery[0]; d.Cause != groupcheck.CauseSameGeneration {
				t.Errorf("redelivery cause %q, want %q", d.Cause, groupcheck.CauseSameGeneration)
			}
		},
	}, {
		name: "latest reset: records before the group's first delivery were never its to read",
		lines: cat(fiveAcked,
			[]string{ev(100, 10, "invoke", "subscribe", `{"group":"g","member":"m0","topic":"t","protocol":"consumer","offset_reset":"latest"}`),
				ev(101, 10, "ok", "subscribe", `{"group":"g","member":"m0","topic":"t","protocol":"consumer","member_id":"x"}`)},
			rebal(10, 110, 1, []int{0}, nil), gpoll(10, 120, 130, 1, "0:3:v3"), gcommit(10, 140, 150, 1, "ok", "0:4"), fiveFinal),
		want: map[string]int{}, valid: Valid,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCheck(t, lines2hist(tc.lines...), tc.opts)
			if got := groupCounts(r); !maps.Equal(got, tc.want) {
				t.Errorf("counts %v, want %v; anomalies %+v", got, tc.want, r.Anomalies)
			}
			if r.Valid != tc.valid {
				t.Errorf("verdict %v, want %v: %v", r.Valid, tc.valid, r.Reasons)
			}
			if tc.check != nil && !t.Failed() {
				tc.check(t, r)
			}
		})
	}
}

// TestGroupUnassigned: seconds a partition had no live holder, from a
// revoke (or a retired process) to the next assignment.
func TestGroupUnassigned(t *testing.T) {
	const s = int64(1e9)
	r := mustCheck(t, lines2hist(cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 1*s, 1, []int{0}, nil),
		gcommit(10, 2*s, 2*s+10, 1, "info", "0:1"), // p10 retired at 2 s
		sub(11, 3*s, "m0"), rebal(11, 5*s, 2, []int{0}, nil), rebal(11, 6*s, 3, nil, []int{0}),
		gpoll(11, 8*s, 8*s+5, 3), finalAll(9*s, 0, 5, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"))...), Options{})
	// Held 1-2 s and 5-6 s; unheld 2-5 s and 6 s to the last group op at 8 s.
	if got := r.Stats.Groups.UnassignedS["t-0"]; got < 4.99 || got > 5.01 {
		t.Errorf("unassigned %v s, want 5 (2-5 s and 6-8 s)", got)
	}
}

// TestGroupUnassignedContinued: a process that continues a retired one's
// client holds its partitions on: the retire is no gap.
func TestGroupUnassignedContinued(t *testing.T) {
	const s = int64(1e9)
	r := mustCheck(t, lines2hist(cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 1*s, 1, []int{0}, nil),
		gcommit(10, 2*s, 2*s+10, 1, "info", "0:1"), // p10 retired at 2 s, p11 goes on with its client
		subCont(11, 3*s, "m0", 10), rebal(11, 6*s, 2, nil, []int{0}),
		gpoll(11, 8*s, 8*s+5, 2), finalAll(9*s, 0, 5, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"))...), Options{})
	// Held 1-6 s through p10 and p11; unheld 6 s to the last group op at 8 s.
	if got := r.Stats.Groups.UnassignedS["t-0"]; got < 1.99 || got > 2.01 {
		t.Errorf("unassigned %v s, want 2 (6-8 s)", got)
	}
}

// TestGroupUnassignedAfterMemberKill: a member-kill ends its member's
// process (which records nothing more) for the unassigned measure.
func TestGroupUnassignedAfterMemberKill(t *testing.T) {
	const s = int64(1e9)
	kill := `{"fault":"member-kill","details":{"member":"m0"}}`
	r := mustCheck(t, lines2hist(cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 1*s, 1, []int{0}, nil),
		[]string{ev(2*s, -1, "invoke", "member-kill", kill), ev(2*s+5, -1, "ok", "member-kill", kill)},
		sub(11, 3*s, "m1"), rebal(11, 5*s, 2, []int{0}, nil),
		gpoll(11, 6*s, 6*s+5, 2), finalAll(9*s, 0, 5, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"))...), Options{})
	if got := r.Stats.Groups.UnassignedS["t-0"]; got < 2.99 || got > 3.01 {
		t.Errorf("unassigned %v s, want 3 (the kill at 2 s to the assignment at 5 s)", got)
	}
}

// TestGroupBadInput: a malformed group op is bad input naming its field.
func TestGroupBadInput(t *testing.T) {
	subOK := sub(10, 100, "m0")
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"subscribe without group", []string{ev(1, 10, "invoke", "subscribe", `{"member":"m","topic":"t","protocol":"classic"}`)}, `subscribe invoke value: missing field "group"`},
		{"subscribe without member", []string{ev(1, 10, "invoke", "subscribe", `{"group":"g","topic":"t","protocol":"classic"}`)}, `missing field "member"`},
		{"subscribe without value", []string{ev(1, 10, "invoke", "subscribe", "")}, `subscribe invoke: missing field "value"`},
		{"subscribe bad protocol", []string{ev(1, 10, "invoke", "subscribe", `{"group":"g","member":"m","topic":"t","protocol":"eager"}`)}, `field "protocol": "eager"`},
		{"subscribe bad offset_reset", []string{ev(1, 10, "invoke", "subscribe", `{"group":"g","member":"m","topic":"t","protocol":"classic","offset_reset":"none"}`)}, `field "offset_reset"`},
		{"subscribe ok names another group", []string{ev(1, 10, "invoke", "subscribe", `{"group":"g","member":"m","topic":"t","protocol":"classic"}`),
			ev(2, 10, "ok", "subscribe", `{"group":"h","member":"m","topic":"t","protocol":"classic"}`)}, `field "group": "h", but its invoke named "g"`},
		{"subscribe continues no member", cat(subOK, subCont(11, 200, "m1", 10)), `subscribe invoke value: field "continues": process 10 is not member "m1" of group "g"`},
		{"subscribe continues itself", cat(subOK, subCont(10, 200, "m0", 10)), `field "continues": process 10 would continue itself`},
		{"subscribe continues in a cycle", cat(subOK, subCont(11, 200, "m0", 10), subCont(10, 300, "m0", 11)), `field "continues": process 11 would continue itself`},
		{"subscribe continues twice", cat(subOK, subCont(11, 200, "m0", 10), subCont(12, 300, "m0", 10)), `field "continues": process 10 was already continued by process 11`},
		{"group poll without subscribe", []string{ev(1, 10, "invoke", "poll", `{"topic":"t","partitions":[0],"group":"g","generation":1}`)}, `poll invoke value: field "group": "g", but process 10 is not a member of it`},
		{"group poll without generation", cat(subOK, []string{ev(200, 10, "invoke", "poll", `{"topic":"t","partitions":[0],"group":"g"}`)}), `poll invoke value: missing field "generation"`},
		{"commit without offsets", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t"}`)}), `commit invoke value: missing field "offsets"`},
		{"commit negative offset", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t","offsets":{"0":-1}}`)}), `field "offsets": partition 0 at -1, negative`},
		{"commit bad partition key", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t","offsets":{"x":1}}`)}), `field "offsets"`},
		{"commit by a non-member", []string{ev(1, 10, "invoke", "commit", `{"group":"g","topic":"t","offsets":{"0":1}}`)}, `commit invoke value: field "group": "g", but process 10 is not a member of it`},
		{"commit ok offset differs", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t","offsets":{"0":1}}`),
			ev(201, 10, "ok", "commit", `{"group":"g","topic":"t","offsets":{"0":2}}`)}), `commit ok value: field "offsets": partition 0 at 2, but its invoke asked for 1`},
		{"commit ok extra partition", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t","offsets":{"0":1}}`),
			ev(201, 10, "ok", "commit", `{"group":"g","topic":"t","offsets":{"0":1,"1":3}}`)}), `partition 1, which its invoke did not ask for`},
		{"commit ok without value", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t","offsets":{"0":1}}`),
			ev(201, 10, "ok", "commit", "")}), `commit ok: missing field "value"`},
		{"rebalance without topic", cat(subOK, []string{ev(200, 10, "invoke", "rebalance", `{"group":"g","generation":1,"assigned":[0]}`)}), `rebalance invoke value: missing field "topic"`},
		{"rebalance negative partition", cat(subOK, []string{ev(200, 10, "invoke", "rebalance", `{"group":"g","generation":1,"topic":"t","assigned":[-1]}`)}), `field "assigned": partition -1 is negative`},
		{"rebalance ok differs", cat(subOK, []string{ev(200, 10, "invoke", "rebalance", `{"group":"g","generation":1,"topic":"t","assigned":[0]}`),
			ev(200, 10, "ok", "rebalance", `{"group":"g","generation":2,"topic":"t","assigned":[0]}`)}), `rebalance ok value: differs from its invoke`},
		{"commit generation not a number", cat(subOK, []string{ev(200, 10, "invoke", "commit", `{"group":"g","topic":"t","generation":"x","offsets":{"0":1}}`)}), `field "generation"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := lines2hist(tc.lines...)
			_, err := checkReader(strings.NewReader(h), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "line ") {
				t.Errorf("error %v names no line", err)
			}
		})
	}
}

// TestGroupOpsOfV1Readers: a group poll is a v1 poll to the other checks,
// and the group ops are no longer counted as ignored.
func TestGroupOpsNotIgnored(t *testing.T) {
	r := mustCheck(t, lines2hist(cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
		gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"), gcommit(10, 140, 150, 1, "ok", "0:5"), fiveFinal)...), Options{})
	if r.Valid != Valid || r.Stats.IgnoredOps != nil {
		t.Errorf("verdict %v, ignored %v: want valid with nothing ignored (%v)", r.Valid, r.Stats.IgnoredOps, r.Reasons)
	}
	if s := r.Stats.Groups; s == nil || s.Commits["ok"] != 1 || s.Members != 1 || s.Delivered != 5 {
		t.Errorf("group stats %+v: want 1 member, 1 ok commit, 5 delivered", s)
	}
}
