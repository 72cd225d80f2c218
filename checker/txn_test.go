package checker

import (
	"errors"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestTxnReads: read_committed readers never see a failed txn's values
// (txn-aborted-read) nor a txn's values before it could have committed
// (txn-uncommitted-read); read_uncommitted readers may see anything sent.
func TestTxnReads(t *testing.T) {
	failed := tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "fail", abort: true, endInv: 15, sends: []string{"0:x:0"}}
	committed := tx{proc: 1, call: 10, ret: 35, id: "tx-1", typ: "ok", endInv: 30, sends: []string{"0:a:0"}}
	reader := tx{proc: 2, call: 5, ret: 20, id: "tx-2", typ: "ok", endInv: 8, polls: [][]string{{"0:0:a"}}}
	fin := fin01(100, map[int]int64{0: 2, 1: 0}, "0:0:a")
	finX := fin01(100, map[int]int64{0: 2, 1: 0}, "0:0:x")
	runRuleCases(t, []ruleCase{
		{"read_committed poll of an aborted txn's value", cat(failed.lines(), rcPoll(5, 21, 22, "0:0:x"), finX),
			Options{}, Invalid, map[string]int{TxnAbortedRead: 1}, TxnAbortedRead},
		{"read_uncommitted poll of an aborted txn's value is fine", cat(failed.lines(), poll(5, 21, 22, []int{0}, "0:0:x"), finX),
			Options{}, Valid, nil, ""},
		{"read_committed final read holds an aborted txn's value", cat(failed.lines(), rcFinal(9, 100, 105, map[int]int64{0: 2, 1: 0}, "0:0:x")),
			Options{}, Invalid, map[string]int{TxnAbortedRead: 1}, TxnAbortedRead},
		{"a txn polls an aborted txn's value", cat(failed.lines(),
			tx{proc: 2, call: 40, ret: 50, id: "tx-2", typ: "ok", endInv: -1, polls: [][]string{{"0:0:x"}}}.lines(), finX),
			Options{}, Invalid, map[string]int{TxnAbortedRead: 1}, TxnAbortedRead},
		{"a failed txn's value read twice is one anomaly", cat(failed.lines(), rcPoll(5, 21, 22, "0:0:x"), rcPoll(6, 23, 24, "0:0:x"), finX),
			Options{}, Invalid, map[string]int{TxnAbortedRead: 1}, TxnAbortedRead},
		{"read before the txn asked to commit", cat(committed.lines()[:1], rcPoll(5, 21, 22, "0:0:a"), committed.lines()[1:], fin),
			Options{}, Invalid, map[string]int{TxnUncommittedRead: 1}, TxnUncommittedRead},
		{"read after the commit is fine", cat(committed.lines(), rcPoll(5, 40, 41, "0:0:a"), fin),
			Options{}, Valid, nil, ""},
		{"read while the commit was under way is fine", cat(committed.lines()[:1], rcPoll(5, 31, 32, "0:0:a"), committed.lines()[1:], fin),
			Options{}, Valid, nil, ""},
		{"read before the txn began, no end_invoked", cat(rcPoll(5, 1, 5, "0:0:a"), okTx(1, 10, 35, "tx-1", "0:a:0").lines(), fin),
			Options{}, Invalid, map[string]int{TxnUncommittedRead: 1}, TxnUncommittedRead},
		{"read during the txn, no end_invoked: cannot tell", cat(one(okTx(1, 10, 35, "tx-1", "0:a:0").lines()[0]), rcPoll(5, 20, 21, "0:0:a"),
			one(okTx(1, 10, 35, "tx-1", "0:a:0").lines()[1]), fin),
			Options{}, Valid, nil, ""},
		{"a txn polls its own write", cat(tx{proc: 1, call: 10, ret: 35, id: "tx-1", typ: "ok", endInv: 30,
			sends: []string{"0:a:0"}, polls: [][]string{{"0:0:a"}}}.lines(), fin),
			Options{}, Invalid, map[string]int{TxnUncommittedRead: 1}, TxnUncommittedRead},
		{"a txn polls a committed earlier txn's value", cat(committed.lines(),
			tx{proc: 2, call: 40, ret: 50, id: "tx-2", typ: "ok", endInv: 45, polls: [][]string{{"0:0:a"}}}.lines(), fin),
			Options{}, Valid, nil, ""},
		{"a txn polls a txn that asked to commit after the poll", cat(
			one(reader.lines()[0]), committed.lines()[:1], one(reader.lines()[1]), committed.lines()[1:], fin),
			Options{}, Invalid, map[string]int{TxnUncommittedRead: 1}, TxnUncommittedRead},
		{"a txn's value is never unexpected", cat(committed.lines(), poll(5, 40, 41, []int{0}, "0:0:a"), fin),
			Options{}, Valid, nil, ""},
	})
}

// TestTxnLostWrite: a committed txn's acked send missing from the final
// read is lost by lost-write's window rule; committed after the final
// read's invoke it is unseen.
func TestTxnLostWrite(t *testing.T) {
	empty := fin01(100, map[int]int64{0: 2, 1: 0})
	runRuleCases(t, []ruleCase{
		{"committed before the final read, missing", cat(okTx(1, 10, 20, "tx-1", "0:a:0").lines(), empty),
			Options{}, Invalid, map[string]int{TxnLostWrite: 1}, TxnLostWrite},
		{"committed after the final read's invoke, missing: unseen", cat(
			one(okTx(1, 10, 102, "tx-1", "0:a:0").lines()[0]), one(empty[0]), one(okTx(1, 10, 102, "tx-1", "0:a:0").lines()[1]), one(empty[1])),
			Options{}, Unknown, map[string]int{Unseen: 1}, "unseen"},
		{"read_committed final read holds it", cat(okTx(1, 10, 20, "tx-1", "0:a:0").lines(), rcFinal(9, 100, 105, map[int]int64{0: 2, 1: 0}, "0:0:a")),
			Options{}, Valid, nil, ""},
		// Not lost; the verdict is unknown only because the history
		// acknowledged nothing (nothingAcked).
		{"a failed txn's value missing is fine", cat(tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "fail", endInv: -1, sends: []string{"0:a:0"}}.lines(), empty),
			Options{}, Unknown, nil, nothingAckedReason},
		{"an info txn's value missing is fine", cat(tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "info", endInv: -1, sends: []string{"0:a:0"}}.lines(), empty),
			Options{}, Unknown, nil, nothingAckedReason},
		{"no final read: unknown", okTx(1, 10, 20, "tx-1", "0:a:0").lines(),
			Options{}, Unknown, map[string]int{Unseen: 1}, "no completed final read"},
	})
}

// TestTxnTorn: a txn is all or nothing, and a committed txn's values keep
// their send order on each partition.
func TestTxnTorn(t *testing.T) {
	info := func(sends ...string) []string {
		return tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "info", endInv: 15, sends: sends}.lines()
	}
	ends := map[int]int64{0: 2, 1: 2}
	runRuleCases(t, []ruleCase{
		{"info txn half visible to read_committed", cat(info("0:a:0", "1:b:0"), rcFinal(9, 100, 105, ends, "0:0:a")),
			Options{}, Invalid, map[string]int{TxnTorn: 1}, TxnTorn},
		// Not torn; unknown only because nothing was acknowledged.
		{"info txn fully visible", cat(info("0:a:0", "1:b:0"), rcFinal(9, 100, 105, ends, "0:0:a", "1:0:b")),
			Options{}, Unknown, nil, nothingAckedReason},
		{"info txn fully absent", cat(info("0:a:0", "1:b:0"), rcFinal(9, 100, 105, ends)),
			Options{}, Unknown, nil, nothingAckedReason},
		{"info txn half in a read_uncommitted final read: maybe aborted", cat(info("0:a:0", "1:b:0"), fin01(100, ends, "0:0:a")),
			Options{}, Unknown, nil, nothingAckedReason},
		{"ok txn half visible", cat(okTx(1, 10, 20, "tx-1", "0:a:0", "1:b:0").lines(), fin01(100, ends, "0:0:a")),
			Options{}, Invalid, map[string]int{TxnTorn: 1, TxnLostWrite: 1}, TxnTorn},
		{"ok txn out of send order", cat(okTx(1, 10, 20, "tx-1", "0:a:1", "0:b:0").lines(), fin01(100, ends, "0:0:b", "0:1:a")),
			Options{}, Invalid, map[string]int{TxnTorn: 1}, TxnTorn},
		{"ok txn in send order", cat(okTx(1, 10, 20, "tx-1", "0:a:0", "0:b:1").lines(), fin01(100, ends, "0:0:a", "0:1:b")),
			Options{}, Valid, nil, ""},
		{"failed txn half visible is fine", cat(tx{proc: 1, call: 10, ret: 20, id: "tx-1", typ: "fail", endInv: -1,
			sends: []string{"0:a:0", "1:b:0"}}.lines(), fin01(100, ends, "0:0:a")),
			Options{}, Unknown, nil, nothingAckedReason},
		{"the partition without a completed final read cannot judge", cat(info("0:a:0", "1:b:0"),
			final(9, 100, 105, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a"), final(8, 106, 110, []int{1}, nil, "info")),
			Options{}, Unknown, nil, "no completed final read"},
	})
}

// TestTxnIntegration: txn values in the existing checks.
func TestTxnIntegration(t *testing.T) {
	plain := cat(send(0, 1, 2, 0, "v0", "ok", 0), send(0, 3, 4, 0, "v3", "ok", 3))
	aborted := tx{proc: 1, call: 5, ret: 6, id: "tx-1", typ: "fail", endInv: -1, sends: []string{"0:x:1"}}.lines()
	committed := okTx(1, 5, 6, "tx-1", "0:y:1").lines()
	runRuleCases(t, []ruleCase{
		{"read_committed poll skips an aborted record and a marker", cat(plain, aborted, rcPoll(5, 10, 11, "0:0:v0"), rcPoll(5, 12, 13, "0:3:v3"),
			fin01(100, map[int]int64{0: 4, 1: 0}, "0:0:v0", "0:1:x", "0:3:v3")),
			Options{}, Valid, nil, ""},
		{"read_committed poll skips a committed record", cat(plain, committed, rcPoll(5, 10, 11, "0:0:v0"), rcPoll(5, 12, 13, "0:3:v3"),
			fin01(100, map[int]int64{0: 4, 1: 0}, "0:0:v0", "0:1:y", "0:3:v3")),
			Options{}, Invalid, map[string]int{PollSkip: 1}, PollSkip},
		{"read_uncommitted poll skips an aborted record", cat(plain, aborted, poll(5, 10, 11, []int{0}, "0:0:v0"), poll(5, 12, 13, []int{0}, "0:3:v3"),
			fin01(100, map[int]int64{0: 4, 1: 0}, "0:0:v0", "0:1:x", "0:3:v3")),
			Options{}, Invalid, map[string]int{PollSkip: 1}, PollSkip},
		{"an aborted txn's offset reused by a plain send", cat(plain, aborted, send(2, 7, 8, 0, "z", "ok", 1),
			fin01(100, map[int]int64{0: 4, 1: 0}, "0:0:v0", "0:1:z", "0:3:v3")),
			Options{}, Invalid, map[string]int{OffsetReuse: 1}, OffsetReuse},
		{"a txn value at two offsets", cat(committed, fin01(100, map[int]int64{0: 3, 1: 0}, "0:1:y", "0:2:y")),
			Options{}, Invalid, map[string]int{TxnDuplicate: 1}, TxnDuplicate},
		{"a plain duplicate from a non-idempotent producer still does not count", cat(send(0, 1, 2, 0, "v0", "ok", 0), committed,
			fin01(100, map[int]int64{0: 3, 1: 0}, "0:0:v0", "0:1:y", "0:2:v0")),
			Options{}, Valid, map[string]int{Duplicate: 1}, "not idempotent"},
		{"txn partitions are left out of porcupine", cat(plain, committed, fin01(100, map[int]int64{0: 4, 1: 0}, "0:0:v0", "0:1:y", "0:3:v3")),
			Options{}, Valid, nil, "left out of the log model"},
	})
}

// TestTxnNotIgnored: a txn op is analysed, no longer an ignored f.
func TestTxnNotIgnored(t *testing.T) {
	res := mustCheck(t, lines2hist(cat(okTx(1, 10, 20, "tx-1", "0:a:0").lines(), fin01(100, map[int]int64{0: 1, 1: 0}, "0:0:a"))...), Options{})
	if res.Stats.IgnoredOps != nil || res.Stats.Txns == nil || res.Stats.Txns.OK != 1 || res.Valid != Valid {
		t.Fatalf("ignored %v, txns %+v, valid %v %q", res.Stats.IgnoredOps, res.Stats.Txns, res.Valid, res.Reasons)
	}
	if _, ok := res.Linearizable.Partitions["t-0"]; ok || len(res.Stats.Txns.NotLinearized) != 1 {
		t.Fatalf("t-0 linearized: %+v; not linearized %v", res.Linearizable, res.Stats.Txns.NotLinearized)
	}
}

// TestTxnBadInput: txn ops are decoded as strictly as sends.
func TestTxnBadInput(t *testing.T) {
	inv := func(v string) string { return ev(10, 1, "invoke", "txn", v) }
	done := func(typ, v string) string { return ev(20, 1, typ, "txn", v) }
	good := `{"transactional_id":"tx","intent":"commit","ops":[{"f":"send","topic":"t","partition":0,"value":"a"}]}`
	for _, c := range []struct {
		name  string
		lines []string
		line  int
		field string
	}{
		{"invoke without value", one(inv("")), 1, `"value"`},
		{"invoke without transactional_id", one(inv(`{"intent":"commit","ops":[]}`)), 1, `"transactional_id"`},
		{"invoke without intent", one(inv(`{"transactional_id":"tx","ops":[]}`)), 1, `"intent"`},
		{"invoke with another intent", one(inv(`{"transactional_id":"tx","intent":"maybe","ops":[]}`)), 1, `"intent"`},
		{"invoke without ops", one(inv(`{"transactional_id":"tx","intent":"commit"}`)), 1, `"ops"`},
		{"micro-op of another f", one(inv(`{"transactional_id":"tx","intent":"commit","ops":[{"f":"delete","topic":"t"}]}`)), 1, `"f"`},
		{"send without partition", one(inv(`{"transactional_id":"tx","intent":"commit","ops":[{"f":"send","topic":"t","value":"a"}]}`)), 1, `"partition"`},
		{"send without value", one(inv(`{"transactional_id":"tx","intent":"commit","ops":[{"f":"send","topic":"t","partition":0}]}`)), 1, `"value"`},
		{"send to a negative partition", one(inv(`{"transactional_id":"tx","intent":"commit","ops":[{"f":"send","topic":"t","partition":-1,"value":"a"}]}`)), 1, `"partition"`},
		{"poll without partitions", one(inv(`{"transactional_id":"tx","intent":"commit","ops":[{"f":"poll","topic":"t"}]}`)), 1, `"partitions"`},
		{"ok without value", cat(one(inv(good)), one(done("ok", ""))), 2, `"value"`},
		{"ok of an abort", cat(one(inv(strings.Replace(good, "commit", "abort", 1))), one(done("ok", strings.Replace(good, "commit", "abort", 1)))), 2, `"intent"`},
		{"completion's send not in the invoke", cat(one(inv(good)), one(done("ok", strings.Replace(good, `"a"`, `"b","offset":0`, 1)))), 2, `"value"`},
		{"completion's send to another partition", cat(one(inv(good)), one(done("ok", strings.Replace(good, `"partition":0`, `"partition":1`, 1)))), 2, `"value"`},
		{"negative offset", cat(one(inv(good)), one(done("ok", strings.Replace(good, `"a"`, `"a","offset":-3`, 1)))), 2, `"offset"`},
		{"another transactional_id", cat(one(inv(good)), one(done("fail", strings.Replace(good, `"tx"`, `"ty"`, 1)))), 2, `"transactional_id"`},
		{"end_invoked before the invoke", cat(one(inv(good)), one(done("ok", strings.Replace(good, `]}`, `],"end_invoked":3}`, 1)))), 2, `"end_invoked"`},
		{"poll record without leader_epoch", cat(one(inv(`{"transactional_id":"tx","intent":"commit","ops":[{"f":"poll","topic":"t","partitions":[0]}]}`)),
			one(done("ok", `{"transactional_id":"tx","intent":"commit","ops":[{"f":"poll","topic":"t","records":[{"partition":0,"offset":0,"value":"a"}]}]}`))), 2, `"leader_epoch"`},
		{"poll of another isolation", one(ev(10, 5, "invoke", "poll", `{"topic":"t","partitions":[0],"isolation":"serializable"}`)), 1, `"isolation"`},
		{"final read of another isolation", one(ev(10, 9, "invoke", "final-read", `{"topic":"t","partitions":[0],"isolation":"snapshot"}`)), 1, `"isolation"`},
		{"send to a partition the run never had", one(inv(strings.Replace(good, `"partition":0`, `"partition":7`, 1))), 1, `"partition"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := checkReader(strings.NewReader(lines2hist(c.lines...)), Options{Topic: "t", Partitions: 2})
			var le *histories.LineError
			if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("error %v, want a LineError at line %d naming %s", err, c.line, c.field)
			}
		})
	}
}
