package harness

import (
	"os"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
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
