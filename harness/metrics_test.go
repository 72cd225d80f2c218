package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/report"
)

// TestScanForMetricsRealS2: in the recorded s2 run (an unclean election
// after the leader's kill) leadership moved from broker 0 to broker 1.
func TestScanForMetricsRealS2(t *testing.T) {
	f, err := os.Open("../histories/testdata/real-s2/history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := scanForMetrics(histories.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	acked, errs, leader := sc.acked, sc.errs, sc.leaderAfter
	if acked == 0 || leader != 1 || sc.last == 0 {
		t.Errorf("acked %d, leader after fault %d; want acked > 0 and leader 1 (s2's story)", acked, leader)
	}
	t.Logf("acked %d, errors %v, leader after fault %d", acked, errs, leader)
}

func TestScanForMetricsSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lines  []string
		acked  int
		errs   map[string]int
		leader int32
		// committed txns and the last event time
		committed int
		last      int64
	}{
		{"leader never moves", []string{
			`{"index":0,"time":1,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":0,"leader_epoch":0}}`,
			`{"index":1,"time":2,"process":-1,"type":"ok","f":"kill","value":{"nodes":[2]}}`,
			`{"index":2,"time":3,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":0,"leader_epoch":0}}`,
		}, 0, map[string]int{}, -1, 0, 3},
		{"offline, then another leader; other partitions ignored", []string{
			`{"index":0,"time":1,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":0,"leader_epoch":0}}`,
			`{"index":1,"time":2,"process":-1,"type":"invoke","f":"kill","value":{"nodes":[0]}}`,
			`{"index":2,"time":3,"process":-1,"type":"ok","f":"kill","value":{"nodes":[0]}}`,
			`{"index":3,"time":4,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":-1,"leader_epoch":1}}`,
			`{"index":4,"time":5,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":1,"leader":1,"leader_epoch":1}}`,
			`{"index":5,"time":6,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":2,"leader_epoch":2}}`,
			`{"index":6,"time":7,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":1,"leader_epoch":3}}`,
		}, 0, map[string]int{}, 2, 0, 7},
		{"acked and failed sends", []string{
			`{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}`,
			`{"index":1,"time":2,"process":0,"type":"ok","f":"send","value":{"topic":"t","partition":0,"value":"a","offset":0}}`,
			`{"index":2,"time":3,"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"b"}}`,
			`{"index":3,"time":4,"process":0,"type":"fail","f":"send","value":{"topic":"t","partition":0,"value":"b"},"error":"NOT_ENOUGH_REPLICAS"}`,
			`{"index":4,"time":5,"process":1,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"c"}}`,
			`{"index":5,"time":6,"process":1,"type":"ok","f":"send","value":{"topic":"t","partition":0,"value":"c"}}`,
		}, 1, map[string]int{"NOT_ENOUGH_REPLICAS": 1}, -1, 0, 6},
		{"transactions: committed, aborted, fenced", []string{
			`{"index":0,"time":1,"process":0,"type":"invoke","f":"txn","value":{"transactional_id":"x","intent":"commit","ops":[{"f":"send","topic":"t","partition":0,"value":"a"}]}}`,
			`{"index":1,"time":2,"process":0,"type":"ok","f":"txn","value":{"transactional_id":"x","intent":"commit","ops":[{"f":"send","topic":"t","partition":0,"value":"a","offset":0}]}}`,
			`{"index":2,"time":3,"process":0,"type":"invoke","f":"txn","value":{"transactional_id":"x","intent":"abort","ops":[{"f":"send","topic":"t","partition":0,"value":"b"}]}}`,
			`{"index":3,"time":4,"process":0,"type":"fail","f":"txn","value":{"transactional_id":"x","intent":"abort","ops":[{"f":"send","topic":"t","partition":0,"value":"b","offset":1}]}}`,
			`{"index":4,"time":5,"process":0,"type":"invoke","f":"txn","value":{"transactional_id":"x","intent":"commit","ops":[{"f":"send","topic":"t","partition":0,"value":"c"}]}}`,
			`{"index":5,"time":9,"process":0,"type":"fail","f":"txn","value":{"transactional_id":"x","intent":"commit","ops":[]},"error":"PRODUCER_FENCED"}`,
		}, 0, map[string]int{"PRODUCER_FENCED": 1}, -1, 1, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := histories.NewReader(strings.NewReader(strings.Join(tc.lines, "\n") + "\n"))
			sc, err := scanForMetrics(r)
			if err != nil {
				t.Fatal(err)
			}
			acked, errs, leader := sc.acked, sc.errs, sc.leaderAfter
			if acked != tc.acked || leader != tc.leader || len(errs) != len(tc.errs) || sc.committed != tc.committed || sc.last != tc.last {
				t.Fatalf("got acked %d errs %v leader %d committed %d last %d; want %d %v %d %d %d",
					acked, errs, leader, sc.committed, sc.last, tc.acked, tc.errs, tc.leader, tc.committed, tc.last)
			}
			for k, n := range tc.errs {
				if errs[k] != n {
					t.Errorf("errs[%s] = %d, want %d", k, errs[k], n)
				}
			}
		})
	}
}

// TestScanFaultWindowsAndISR: acked_during_faults counts the acks between
// a lasting fault's ok and the heal (or undo op) that covers it, and not
// after; an info fault opens no window; isr_changes counts each recorded
// ISR that differs, as a set, from its partition's previous one.
func TestScanFaultWindowsAndISR(t *testing.T) {
	ack := func(i, at int, v string) []string {
		return []string{
			fmt.Sprintf(`{"index":%d,"time":%d,"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"%s"}}`, i, at, v),
			fmt.Sprintf(`{"index":%d,"time":%d,"process":0,"type":"ok","f":"send","value":{"topic":"t","partition":0,"value":"%s","offset":%d}}`, i+1, at+1, v, i),
		}
	}
	obs := func(i, at, p int, isr string) string {
		return fmt.Sprintf(`{"index":%d,"time":%d,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":%d,"leader":0,"leader_epoch":0,"isr":%s}}`, i, at, p, isr)
	}
	var lines []string
	lines = append(lines, obs(0, 1, 0, "[0,1,2]"), obs(1, 2, 1, "[1,2,0]"))
	lines = append(lines, ack(2, 3, "before")...)
	lines = append(lines, `{"index":4,"time":5,"process":-1,"type":"info","f":"netem","value":{"fault":"netem"},"error":"no effect"}`)
	lines = append(lines, ack(5, 6, "info fault")...)
	lines = append(lines, `{"index":7,"time":8,"process":-1,"type":"ok","f":"cut-clients","value":{"fault":"cut-clients","nodes":[0]}}`)
	lines = append(lines, ack(8, 9, "cut1")...)
	lines = append(lines, obs(10, 11, 0, "[0]"), obs(11, 12, 1, "[0,1,2]"), obs(12, 13, 0, "[0]"))
	lines = append(lines, ack(13, 14, "cut2")...)
	lines = append(lines, `{"index":15,"time":16,"process":-1,"type":"ok","f":"heal","value":{"fault":"netem"}}`)
	lines = append(lines, ack(16, 17, "netem heal covers no cut")...)
	lines = append(lines, `{"index":18,"time":19,"process":-1,"type":"ok","f":"heal","value":{"fault":"partition"}}`)
	lines = append(lines, ack(19, 20, "after")...)
	lines = append(lines, obs(21, 22, 0, "[2,1,0]"))
	sc, err := scanForMetrics(histories.NewReader(strings.NewReader(strings.Join(lines, "\n") + "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if sc.acked != 6 || sc.ackedFaulted != 3 || sc.isrChanges != 2 {
		t.Errorf("acked %d, during faults %d (want 3: cut1, cut2 and the one after heal netem), isr changes %d (want 2)", sc.acked, sc.ackedFaulted, sc.isrChanges)
	}
}

// TestScanUntils: untils_timed_out counts the until ops that failed (a
// soft wait that timed out), not the ones that held nor the invokes; a
// history without until ops leaves it unmeasured.
func TestScanUntils(t *testing.T) {
	until := func(i int, typ string) string {
		return fmt.Sprintf(`{"index":%d,"time":%d,"process":-1,"type":"%s","f":"until","value":{"fault":"until","details":{"condition":"partition 0 leader 0","partition":0,"leader":0,"optional":true,"timeout_ms":60000}}}`, i, i, typ)
	}
	for _, tc := range []struct {
		name           string
		lines          []string
		untils, missed int
	}{
		{"no untils recorded", nil, 0, 0},
		{"one held", []string{until(0, "invoke"), until(1, "ok")}, 1, 0},
		{"one held, one timed out", []string{until(0, "invoke"), until(1, "ok"), until(2, "invoke"), until(3, "fail")}, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scanForMetrics(histories.NewReader(strings.NewReader(strings.Join(tc.lines, "\n") + "\n")))
			if err != nil {
				t.Fatal(err)
			}
			if sc.untils != tc.untils || sc.untilsTimedOut != tc.missed {
				t.Errorf("untils %d timed out %d, want %d and %d", sc.untils, sc.untilsTimedOut, tc.untils, tc.missed)
			}
		})
	}
}

// TestScanFeaturesRefused: features_refused counts the set-feature ops
// Kafka refused (completed fail), not the applied ones nor one that failed
// otherwise (info) nor the invokes.
func TestScanFeaturesRefused(t *testing.T) {
	set := func(i int, typ string) string {
		return fmt.Sprintf(`{"index":%d,"time":%d,"process":-1,"type":"%s","f":"set-feature","value":{"fault":"set-feature","details":{"finalize":"metadata.version"}}}`, i, i, typ)
	}
	for _, tc := range []struct {
		name          string
		lines         []string
		sets, refused int
	}{
		{"no set-feature", nil, 0, 0},
		{"applied", []string{set(0, "invoke"), set(1, "ok")}, 1, 0},
		{"refused, and one that timed out", []string{set(0, "invoke"), set(1, "fail"), set(2, "invoke"), set(3, "info")}, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := strings.Join(tc.lines, "\n") + "\n"
			sc, err := scanForMetrics(histories.NewReader(strings.NewReader(h)))
			if err != nil {
				t.Fatal(err)
			}
			if sc.featureSets != tc.sets || sc.featuresRefused != tc.refused {
				t.Errorf("set-feature ops %d refused %d, want %d and %d", sc.featureSets, sc.featuresRefused, tc.sets, tc.refused)
			}
		})
	}
}

// TestScanShareAcksUnanswered: share_acks_unanswered counts the acks of
// finished share-ack ops that the client gave no result for (KAFKA-20330's
// dropped acks), not confirmed or failed ones, nor those of an info op
// (its flush did not finish: the result may have come later); a history
// without share acks leaves it unmeasured.
func TestScanShareAcksUnanswered(t *testing.T) {
	ack := func(i int, typ, outcome, errText string) string {
		return fmt.Sprintf(`{"index":%d,"time":%d,"process":3,"type":"%s","f":"share-ack","value":{"group":"g","member":"m0","topic":"orders","acks":[`+
			`{"partition":0,"offset":%d,"value":"v","delivery_count":1,"status":"accept","outcome":"%s","error":"%s"}]}}`, i, i, typ, i, outcome, errText)
	}
	for _, tc := range []struct {
		name             string
		lines            []string
		acks, unanswered int
	}{
		{"no share acks", nil, 0, 0},
		{"confirmed and failed", []string{ack(0, "ok", "ok", ""), ack(1, "ok", "info", "NOT_LEADER_OR_FOLLOWER")}, 2, 0},
		{"one unanswered", []string{ack(0, "ok", "ok", ""), ack(1, "ok", "info", histories.ShareAckNoResult)}, 2, 1},
		{"an unfinished flush", []string{ack(0, "info", "info", histories.ShareAckNoResult)}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scanForMetrics(histories.NewReader(strings.NewReader(strings.Join(tc.lines, "\n") + "\n")))
			if err != nil {
				t.Fatal(err)
			}
			if sc.shareAcks != tc.acks || sc.shareUnanswered != tc.unanswered {
				t.Errorf("share acks %d unanswered %d, want %d and %d", sc.shareAcks, sc.shareUnanswered, tc.acks, tc.unanswered)
			}
		})
	}
}

// TestScanGroupReadBacksUnanswered: group_read_backs_unanswered counts
// the group-final read-backs that did not end ok (info, or never ended):
// a coordinator that never answered for the group; a history without a
// read-back leaves it unmeasured.
func TestScanGroupReadBacksUnanswered(t *testing.T) {
	op := func(i int, typ string) string {
		return fmt.Sprintf(`{"index":%d,"time":%d,"process":11,"type":"%s","f":"group-final","value":{"group":"g","topic":"orders"}}`, i, i, typ)
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  float64
		has   bool
	}{
		{"no read-back", nil, 0, false},
		{"answered", []string{op(0, "invoke"), op(1, "ok")}, 0, true},
		{"never answered", []string{op(0, "invoke"), op(1, "info")}, 1, true},
		{"still open at the end", []string{op(0, "invoke")}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			body := strings.Join(tc.lines, "\n")
			if body != "" {
				body += "\n"
			}
			if err := os.WriteFile(filepath.Join(dir, report.HistoryFile), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, m, _ := measure(dir, nil)
			got, has := m[expect.GroupReadBacksUnanswered]
			if has != tc.has || got != tc.want {
				t.Errorf("%s = %v (measured %v), want %v (measured %v)", expect.GroupReadBacksUnanswered, got, has, tc.want, tc.has)
			}
		})
	}
}
