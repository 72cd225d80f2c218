package checker

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// hangHist is a history in which txn "tx-h" committed its value h at
// offset 1 of partition 0, then a read_committed final read (invoked at
// readAt s) found the last stable offset held at 1 by an open txn of
// producer 7 (described at descAt s, open openMS ms, coordinator timeout
// coordMS ms), the high watermark at 3; a plain value p acked at 2. healAt
// < 0 records no final heal. With ru, a read_uncommitted final read
// follows that holds every value.
func hangHist(healAt, readAt, descAt float64, openMS, coordMS int64, lso, hw int64, ru bool) []string {
	s := func(x float64) int64 { return int64(x * float64(time.Second)) }
	var l []string
	l = append(l, okTx(0, s(1), s(2), "tx-h", "0:h:1").lines()...)
	l = append(l, send(1, s(3), s(4), 0, "p", "ok", 2)...)
	if healAt >= 0 {
		l = append(l, ev(s(healAt), -1, "invoke", "heal", `{"fault":"all","nodes":[0,1]}`),
			ev(s(healAt)+1, -1, "ok", "heal", `{"fault":"all","nodes":[0,1]}`))
	}
	open := fmt.Sprintf(`{"producer_id":7,"producer_epoch":3,"coordinator_epoch":5,"first_offset":%d,"last_timestamp":1,"open_ms":%d,"described_at":%d,"transactional_id":"tx-h","coordinator_state":"CompleteCommit","timeout_ms":%d,"hanging":true}`,
		lso, openMS, s(descAt), coordMS)
	var below []string // what the read_committed read holds
	for _, r := range []string{"0:1:h", "0:2:p"} {
		if off := int64(r[2] - '0'); off < lso {
			below = append(below, r)
		}
	}
	rc := rcFinal(9, s(readAt), s(descAt)+1, map[int]int64{0: lso, 1: 0}, below...)
	rc[1] = strings.TrimSuffix(rc[1], "}}") + fmt.Sprintf(`,"high_watermarks":{"0":%d,"1":0},"last_stable_offsets":{"0":%d,"1":0},"open_txns":{"0":[%s]}}}`, hw, lso, open)
	l = append(l, rc...)
	if ru {
		l = append(l, final(10, s(descAt)+2, s(descAt)+3, []int{0, 1}, map[int]int64{0: hw, 1: 0}, "ok", "0:1:h", "0:2:p")...)
	}
	return l
}

// hangHistRUFirst is hangHist with the read_uncommitted final read
// invoked first and completed before the read_committed one began.
func hangHistRUFirst(healAt, readAt, descAt float64, openMS, coordMS int64, lso, hw int64) []string {
	l := hangHist(healAt, readAt, descAt, openMS, coordMS, lso, hw, false)
	rc := append([]string(nil), l[len(l)-2:]...)
	l = l[:len(l)-2]
	at := int64(readAt*float64(time.Second)) - 2
	l = append(l, final(10, at, at+1, []int{0, 1}, map[int]int64{0: hw, 1: 0}, "ok", "0:1:h", "0:2:p")...)
	return append(l, rc...)
}

// TestTxnHanging (issue 22, class 3): a transaction that holds the last
// stable offset is txn-hanging, not a loss of the committed values above
// it; it counts once it stayed open longer than its timeout plus
// HangingMargin after the final heal, and makes the verdict unknown
// before that. On 510c61f the case with the read_committed read invoked
// last was a lost-write and a txn-lost-write (p and h, both in the log).
func TestTxnHanging(t *testing.T) {
	noLin := Options{SkipLinearizability: true}
	runRuleCases(t, []ruleCase{
		{"held open 40 s after the heal, timeout 10 s: hanging, counted, nothing lost", hangHist(20, 30, 60, 58000, 10000, 1, 3, true),
			noLin, Invalid, map[string]int{txnHanging: 1}, "txn-hanging: 1 (open longer than their timeout plus 15 s"},
		{"the same with the read_committed read invoked last", hangHistRUFirst(20, 30, 60, 58000, 10000, 1, 3),
			noLin, Invalid, map[string]int{txnHanging: 1}, "txn-hanging: 1"},
		{"held open 20 s after the heal, timeout 10 s: unknown", hangHist(40, 50, 60, 58000, 10000, 1, 3, true),
			noLin, Unknown, map[string]int{txnHanging: 1}, "not yet open longer than its timeout"},
		{"no heal: counted from the txn's start", hangHist(-1, 30, 60, 58000, 10000, 1, 3, true),
			noLin, Invalid, map[string]int{txnHanging: 1}, ""},
		{"run.json's timeout wins over the coordinator's", hangHist(20, 30, 60, 58000, 10000, 1, 3, true),
			Options{SkipLinearizability: true, TxnTimeout: 30 * time.Second}, Unknown, map[string]int{txnHanging: 1}, "may still be aborted"},
		{"no timeout known: Kafka's largest (15 min) bounds it", hangHist(20, 30, 60, 58000, 0, 1, 3, true),
			noLin, Unknown, map[string]int{txnHanging: 1}, ""},
		{"last stable offset at the high watermark: nothing held", hangHist(20, 30, 60, 58000, 10000, 3, 3, true),
			noLin, Valid, nil, ""},
		{"aborted by an operator after the read saw it hang: still hanging, and the abort's cost is a txn-lost-write",
			cat(hangHist(20, 30, 60, 58000, 10000, 1, 3, true),
				withTxnEnds(rcFinal(11, 70*int64(time.Second), 71*int64(time.Second), map[int]int64{0: 4, 1: 0}, "0:2:p"),
					map[int]int64{0: 4, 1: 0}, map[int]int64{0: 4, 1: 0})),
			noLin, Invalid, map[string]int{txnHanging: 1, TxnLostWrite: 1}, ""},
		{"held back without a read_uncommitted read: hanging, and the held values unseen", hangHist(20, 30, 60, 58000, 10000, 1, 3, false),
			noLin, Invalid, map[string]int{txnHanging: 1, Unseen: 2}, ""},
	})
}

// TestTxnHangingEntry: the entry names the producer, its epochs, the
// first offset, the txn of the history whose record is there, how long it
// was open, what it holds back and the recovery command.
func TestTxnHangingEntry(t *testing.T) {
	res := mustCheck(t, lines2hist(hangHist(20, 30, 60, 58000, 10000, 1, 3, true)...), Options{SkipLinearizability: true})
	if len(res.Anomalies.TxnHanging) != 1 {
		t.Fatalf("txn-hanging = %+v", res.Anomalies.TxnHanging)
	}
	e := res.Anomalies.TxnHanging[0]
	if e.ProducerID != 7 || e.ProducerEpoch != 3 || e.CoordinatorEpoch != 5 || e.FirstOffset != 1 || e.LastStableOffset != 1 ||
		e.HighWatermark != 3 || !e.Counted || e.TransactionalID != "tx-h" || !e.FindHanging {
		t.Errorf("entry = %+v", e)
	}
	if e.Txn == nil || e.Txn.TransactionalID != "tx-h" || e.Txn.Type != "ok" {
		t.Errorf("txn = %+v", e.Txn)
	}
	if e.OpenS != 59 || e.OpenAfterHealS != 40 {
		t.Errorf("open %v s, %v s after the heal; want 59 and 40", e.OpenS, e.OpenAfterHealS)
	}
	if e.HeldBack.Count != 2 || e.HeldBack.InLog != 2 || e.HeldBack.FirstOffset != 1 || e.HeldBack.LastOffset != 2 {
		t.Errorf("held back = %+v", e.HeldBack)
	}
	want := "abort --topic t --partition 0 --producer-id 7 --producer-epoch 3 --coordinator-epoch 5"
	if !strings.Contains(e.Recovery, want) || !strings.Contains(e.Text, "KAFKA-20716") {
		t.Errorf("recovery %q, text %q", e.Recovery, e.Text)
	}
}

// TestTxnHangingHeldBackUnknownTxn: a hanging transaction holds back the
// values of a txn whose commit's answer was lost (info) exactly when a
// read_committed read proved it committed, the evidence txn-lost-write
// takes (t4 on 2026-12-06: the commit's EndTxn timed out while its
// coordinator was paused, the records were read committed, and held back
// went uncounted while the abort's cost counted them).
func TestTxnHangingHeldBackUnknownTxn(t *testing.T) {
	s := func(x float64) int64 { return int64(x * float64(time.Second)) }
	infoTxn := func(l []string) []string {
		out := append([]string(nil), l...)
		tx := tx{proc: 0, call: s(1), ret: s(2), id: "tx-h", typ: "info", endInv: -1, sends: []string{"0:h:1"}, errText: "timeout"}
		copy(out, tx.lines())
		return out
	}
	// readAfterSends puts a read after hangHist's txn and send (4 lines,
	// 1-4 s), before its heal.
	readAfterSends := func(l, read []string) []string { return cat(l[:4], read, l[4:]) }
	for _, tc := range []struct {
		name       string
		hist       []string
		held, inLg int
	}{
		{"ok txn: h and p held back", hangHist(20, 30, 60, 58000, 10000, 1, 3, true), 2, 2},
		{"info txn never read: only p", infoTxn(hangHist(20, 30, 60, 58000, 10000, 1, 3, true)), 1, 1},
		{"info txn read committed: h and p", readAfterSends(infoTxn(hangHist(20, 30, 60, 58000, 10000, 1, 3, true)), rcPoll(5, s(5), s(6), "0:1:h")), 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustCheck(t, lines2hist(tc.hist...), Options{SkipLinearizability: true})
			if len(res.Anomalies.TxnHanging) != 1 {
				t.Fatalf("txn-hanging = %+v", res.Anomalies.TxnHanging)
			}
			if h := res.Anomalies.TxnHanging[0].HeldBack; h.Count != tc.held || h.InLog != tc.inLg {
				t.Errorf("held back %+v, want %d values, %d in the log", h, tc.held, tc.inLg)
			}
		})
	}
}
