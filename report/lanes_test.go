package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

// checkedRun writes history into a new run folder, checks it with the
// real checker (results.json) and writes the report.
func checkedRun(t *testing.T, write func(dir string)) (md, html string) {
	t.Helper()
	_, md, html = checkedResults(t, write)
	return md, html
}

// checkedResults is checkedRun that also returns the checker's results.
func checkedResults(t *testing.T, write func(dir string)) (res *checker.Result, md, html string) {
	t.Helper()
	dir := t.TempDir()
	write(dir)
	res, _, err := checker.CheckPath(filepath.Join(dir, HistoryFile), checker.Options{SkipLinearizability: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := checker.WriteResults(filepath.Join(dir, ResultsFile), res); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	return res, readString(t, filepath.Join(dir, ReportMD)), readString(t, filepath.Join(dir, ReportHTML))
}

func testdataHistory(name string) func(t *testing.T) func(string) {
	return func(t *testing.T) func(string) {
		return func(dir string) {
			h, err := os.ReadFile("../histories/testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, HistoryFile), h, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLanes: the recorded histories of histories/testdata give the share
// group's and the quorum's sections, lanes and explanations, from what
// the checker found; a history without them gets neither.
func TestLanes(t *testing.T) {
	for _, tc := range []struct {
		name             string
		history          func(t *testing.T) func(string)
		md, html, absent []string
	}{
		{"share-anomalies", testdataHistory("share-anomalies.jsonl"),
			[]string{
				"## Share group q on orders", "Acquisition lock 30000 ms, delivery limit 3",
				"| member | processes | acquired | accepted | released | rejected | ack refused/unknown | member faults | process ends |",
				"| m0 | p10 | 4 | 2 | 1 | 0 | 1 | 0 | 1 |", "| m1 | p11 | 4 | 3 | 0 | 0 | 1 | 0 | 0 |",
				"| member-death | 1 | 1 | 0 | 0 |", "| release | 1 | 1 | 0 | 0 |",
				"| 0 | 3.0 s | 6 | 6 | 6 | no |  |",
				`- **share-lost**: orders-0 offset 5 (value "v5"): the share-partition start offset 6 passed it`,
				"below the limit 3; never delivered; no fault around it",
				`- **share-double-acquire**: orders-0 offset 1 (value "v1"): delivered twice with delivery count 1`,
				"deliveries: m0 (p10) delivery 1 at 1.800 s: accept ok at 2.200 s; m1 (p11) delivery 1 at 2.000 s: accept fail at 2.400 s",
				`- **share-redelivered-after-accept**: orders-0 offset 0 (value "v0")`,
				"m1 (p11) delivery 2 at 2.600 s: accept ok at 2.800 s",
				`- **share-delivery-count**: orders-0 offset 4 (value "v4"): delivery count 5 exceeds group.share.delivery.count.limit 3`,
				`- **share-unknown**: orders-0 offset 3 (value "v3"): an ack of unknown outcome`, "accept info at 2.200 s",
			},
			[]string{
				"<h2>Share group q on orders</h2>", `class="share-acquired"`, `class="share-accepted"`, `class="share-released"`,
				`class="share-refused"`, `class="share-log-end"`, `class="share-delivered"`,
				"<title>share-partition start offset 6 at 3.0 s (the log end was 6; the final read&#39;s end 6); drained: no</title>",
				"<title>m0: process p10 ended (share-ack info) at 2.2 s",
				"<b>share-lost</b>: orders-0 offset 5", "<td>member-death</td>",
			},
			[]string{"KRaft quorum"}},
		{"metadata", testdataHistory("metadata.jsonl"),
			[]string{
				"## KRaft quorum", "3 quorum samples with a new state. No leader named for 0.000 s.",
				"- at 4.0 s: leader 1000 (epoch 3) → 1001 (epoch 4), 3.000 s after the last sample naming the old leader",
				"- at 4.5 s: leader 1001 (epoch 4) → 1002 (epoch 4), 0.500 s after",
				"| 1000 | 0 | 0.0 | 0.0 | 0 |",
				"| 3 | 1000 | 1.000 s | 1.000 s | never after a newer epoch |", "| 4 | 1001 | 4.000 s | 4.000 s | not superseded |",
				"- **metadata-lost**: delete-topic m-2 by p1 (invoked at 5.000 s, acknowledged at 5.100 s): the ack promised topic deleted; the converged metadata (node 0) has topic with 1 partitions",
				"- **metadata-lost**: create-partitions m-1 by p0",
				"- **metadata-diverged**: node 1 against node 0: lacks topic m-2",
				"- **split-brain**: epoch 4 at 4.500 s: controllers 1001 and 1002 both answered as leader of epoch 4",
				"- **metadata-unavailable**: metadata changes failed or ended unknown from 3.000 s to 5.100 s (the next acknowledged change), 2.100 s, 1 ops (NOT_CONTROLLER",
				"; after partition [1000 1001 1002] at 2.0 s",
			},
			[]string{
				"<h2>KRaft quorum</h2>", ">active controller</text>", ">controller epoch</text>", ">voter 1002 lag</text>",
				`class="leader-change"`, "<title>leader 1000 (epoch 3) to 1001 (epoch 4) at 4.0 s</title>",
				"<title>active controller 1000 from 1.0 s to 4.0 s</title>", "<b>split-brain</b>: epoch 4",
			},
			[]string{"Share group"}},
		{"voter changes", testdataHistory("metadata-voters.jsonl"),
			[]string{
				"## KRaft quorum",
				"- **voter-change-lost**: add-controller of voter 1003 (directory id AAAAAAAAAAAAAAAAAAAAAw) acknowledged at 2.500 s (epoch 3 then): the quorum sample at 8.000 s (asked from 5.000 s; leader 1001, epoch 4) voters [1000 1001 1002] lacks 1003",
				"- **voter-change-lost**: remove-controller of voter 1002 (directory id AAAAAAAAAAAAAAAAAAAAAg) acknowledged at 4.500 s (epoch 3 then): the quorum sample at 8.000 s (asked from 5.000 s; leader 1001, epoch 4) voters [1000 1001 1002] has 1002 again while it was down",
			},
			[]string{"<b>voter-change-lost</b>: add-controller of voter 1003"},
			[]string{"Share group"}},
		{"neither", testdataHistory("lost-write.jsonl"), nil, nil,
			[]string{"Share group", "KRaft quorum", "share-", "leader-change"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, html := checkedRun(t, tc.history(t))
			wantReport(t, md, html, tc.md, tc.html, tc.absent)
		})
	}
}

// wantReport checks that report.md and report.html hold what they should
// and that neither shows what it should not.
func wantReport(t *testing.T, md, html string, wantMD, wantHTML, absent []string) {
	t.Helper()
	for _, w := range wantMD {
		if !strings.Contains(md, w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	for _, w := range wantHTML {
		if !strings.Contains(html, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	for _, w := range absent {
		if strings.Contains(md, w) || strings.Contains(html, w) {
			t.Errorf("the report shows %q", w)
		}
	}
	if t.Failed() {
		t.Logf("report.md:\n%s", md)
	}
}

// quorumSample records one observer sample of the quorum; voters are
// id, lag pairs.
func (h *hist) quorumSample(sec float64, leader, epoch int32, hw int64, voters ...int64) {
	v := histories.QuorumValue{LeaderID: leader, LeaderEpoch: epoch, HighWatermark: hw, Voters: []histories.QuorumReplica{}, Observers: []histories.QuorumReplica{}}
	for i := 0; i+1 < len(voters); i += 2 {
		v.Voters = append(v.Voters, histories.QuorumReplica{ID: int32(voters[i]), LogEndOffset: hw - max(voters[i+1], 0), Lag: voters[i+1], LastFetchMS: -1, LastCaughtUpMS: -1})
	}
	h.ev(sec, histories.ObserverProcess, histories.OK, histories.FQuorum, v, "")
}

func built(t *testing.T, f func(h *hist)) func(t *testing.T) func(string) {
	return func(t *testing.T) func(string) {
		return func(dir string) {
			h := newHist(t, filepath.Join(dir, HistoryFile))
			f(h)
			h.close()
		}
	}
}

// TestQuorumLane: how long no leader was named, the leader changes and
// each voter's lag, from the samples; the almost cases (one leader
// throughout, a leaderless end) say so.
func TestQuorumLane(t *testing.T) {
	for _, tc := range []struct {
		name     string
		history  func(h *hist)
		md, html []string
		absent   []string
	}{
		{"leaderless, then a new leader", func(h *hist) {
			h.quorumSample(1, 1, 1, 10, 1, 0, 2, 0, 3, 5)
			h.quorumSample(2, -1, 1, 10)
			h.quorumSample(3, -1, 1, 10) // the same state: not a new sample
			h.quorumSample(4, 2, 2, 12, 1, -1, 2, 0, 3, 0)
			h.quorumSample(6, 2, 2, 13, 1, 0, 2, 0, 3, 0)
			h.quorumSample(8, 2, 2, 14, 1, 0, 2, 0, 3, 0)
		}, []string{
			"5 quorum samples with a new state. No leader named for 2.000 s (2.0-4.0 s).",
			"- at 4.0 s: leader 1 (epoch 1) → 2 (epoch 2), 3.000 s after the last sample naming the old leader; samples between them named no leader",
			"| 1 | 0 | 0.0 | 2.0 | 0 |", "| 3 | 5 | 1.0 | 0.0 | 0 |",
		}, []string{
			"<title>active controller none from 2.0 s to 4.0 s</title>", "<title>voter 3 lag 5 from 1.0 s to 2.0 s</title>",
			"<title>voter 3 lag 0 from 4.0 s to 8.0 s</title>", "<title>voter 1 lag ? from 4.0 s to 6.0 s</title>",
			"<title>leader 1 (epoch 1) to 2 (epoch 2) at 4.0 s</title>",
		}, nil},
		{"leaderless to the end", func(h *hist) {
			h.quorumSample(1, 1, 1, 10, 1, 0)
			h.quorumSample(3, -1, 1, 10)
			h.quorumSample(5, -1, 1, 11)
		}, []string{"No leader named for 2.000 s (3.0-5.0 s).", "No change of leader or epoch between the samples that named one."},
			[]string{"<title>active controller none from 3.0 s to 5.0 s</title>"}, []string{`class="leader-change"`}},
		{"one leader throughout", func(h *hist) {
			h.quorumSample(1, 1, 1, 10, 1, 0, 2, 0)
			h.quorumSample(2, 1, 1, 11, 1, 0, 2, 1)
		}, []string{"2 quorum samples with a new state. No leader named for 0.000 s.", "No change of leader or epoch", "| 2 | 1 | 0.0 | 0.0 | 1 |"},
			[]string{"<title>voter 2 lag 1 from 2.0 s to 2.0 s</title>"}, []string{`class="leader-change"`, "none from"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, html := checkedRun(t, built(t, tc.history)(t))
			wantReport(t, md, html, tc.md, tc.html, tc.absent)
		})
	}
}

// TestShareMemberFaults: a member's kill and restart are on its lane and
// counted, the end of its killed process is marked, and the record it
// held comes back to its new process, counted by cause.
func TestShareMemberFaults(t *testing.T) {
	md, html := checkedRun(t, built(t, func(h *hist) {
		sub := histories.ShareSubscribeValue{Group: "q", Member: "share-0", Topic: "orders", LockMS: 1000, DeliveryLimit: 5}
		poll := histories.SharePollValue{Group: "q", Member: "share-0", Topic: "orders"}
		h.send(0.1, 0, "v0", histories.OK, off(0), "")
		h.ev(0.2, 10, histories.Invoke, histories.FShareSubscribe, sub, "")
		h.ev(0.3, 10, histories.OK, histories.FShareSubscribe, sub, "")
		h.ev(0.4, 10, histories.Invoke, histories.FSharePoll, poll, "")
		got := poll
		got.Records = []histories.ShareRecord{{Partition: 0, Offset: 0, Value: "v0", DeliveryCount: 1}}
		h.ev(0.5, 10, histories.OK, histories.FSharePoll, got, "")
		h.nemesis(0.6, 0.05, histories.FMemberKill, nil, map[string]any{"member": "share-0"})
		h.ev(0.7, 10, histories.Invoke, histories.FSharePoll, poll, "")
		h.ev(0.8, 10, histories.Info, histories.FSharePoll, poll, "client closed")
		h.nemesis(2, 0.1, histories.FMemberStart, nil, map[string]any{"member": "share-0"})
		h.ev(2.2, 11, histories.Invoke, histories.FShareSubscribe, sub, "")
		h.ev(2.3, 11, histories.OK, histories.FShareSubscribe, sub, "")
		h.ev(2.4, 11, histories.Invoke, histories.FSharePoll, poll, "")
		got.Records[0].DeliveryCount = 2
		h.ev(2.5, 11, histories.OK, histories.FSharePoll, got, "")
		ack := histories.ShareAckValue{Group: "q", Member: "share-0", Topic: "orders",
			Acks: []histories.ShareAck{{Partition: 0, Offset: 0, Value: "v0", DeliveryCount: 2, Status: histories.AckAccept}}}
		h.ev(2.6, 11, histories.Invoke, histories.FShareAck, ack, "")
		ack.Acks[0].Outcome = histories.ShareOutcomeOK
		h.ev(2.7, 11, histories.OK, histories.FShareAck, ack, "")
		h.ev(3, 20, histories.Invoke, histories.FShareOffsets, histories.ShareOffsetsValue{Group: "q", Topic: "orders"}, "")
		h.ev(3.1, 20, histories.OK, histories.FShareOffsets, histories.ShareOffsetsValue{Group: "q", Topic: "orders", StartOffsets: map[string]int64{"0": 1}, Drained: true}, "")
		h.ev(3.2, 21, histories.Invoke, histories.FFinalRead, histories.ReadRequest{Topic: "orders", Partitions: []int32{0}}, "")
		h.ev(3.3, 21, histories.OK, histories.FFinalRead, histories.ReadResult{Topic: "orders", EndOffsets: map[string]int64{"0": 1},
			Records: []histories.Record{{Offset: 0, Value: "v0"}}}, "")
	})(t))
	wantReport(t, md, html,
		[]string{"| share-0 | p10 p11 | 2 | 1 | 0 | 0 | 0 | 2 | 1 |", "| member-death | 1 | 1 | 0 | 1 |", "| 0 | 3.1 s | 1 | 1 | 1 | yes |  |"},
		[]string{`class="member-fault"><title>member-kill`, `class="member-fault"><title>member-start`, "process p10 ended (share-poll info) at 0.8 s"},
		nil)
}

// TestLaneBounds: the share lanes' bins and series stay bounded however
// long the history, and keep their totals and their last value.
func TestLaneBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		step int64 // ns between events
	}{
		{"short", 100, 1e6},
		{"an hour at 1 kHz", 3_600_000, 1e6},
		{"a day, sparse", 10_000, 8_640_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c counter
			var s series
			for i := 0; i < tc.n; i++ {
				c.add(int64(i)*tc.step, shAcquired, 1)
				s.rise(int64(i)*tc.step, int64(i)+1)
			}
			total := 0
			for _, b := range c.bins {
				total += b[shAcquired]
			}
			if len(c.bins) > maxBins || total != tc.n {
				t.Errorf("counter: %d bins (max %d), total %d, want %d", len(c.bins), maxBins, total, tc.n)
			}
			if len(s.pts) > maxSeries || s.last() != int64(tc.n) {
				t.Errorf("series: %d points (max %d), last %d, want %d", len(s.pts), maxSeries, s.last(), tc.n)
			}
			for i := 1; i < len(s.pts); i++ {
				if s.pts[i][0] < s.pts[i-1][0] || s.pts[i][1] <= s.pts[i-1][1] {
					t.Fatalf("series not rising at %d: %v %v", i, s.pts[i-1], s.pts[i])
				}
			}
			if got := valueAt(&s, int64(tc.n-1)*tc.step); got != int64(tc.n) {
				t.Errorf("valueAt the last time = %d, want %d", got, tc.n)
			}
			if got := valueAt(&s, -1); got != -1 {
				t.Errorf("valueAt before the first point = %d, want -1", got)
			}
		})
	}
}
