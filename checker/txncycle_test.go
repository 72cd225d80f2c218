package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/txncheck"
)

// TestTxnCycles: G0 (ww only) is reported and does not count, G1c (wr
// only) counts, a cycle that needs both kinds of edge is not reported.
func TestTxnCycles(t *testing.T) {
	ends := map[int]int64{0: 3, 1: 3}
	ok := func(proc int, call, ret int64, id string, sends []string, polls ...[]string) []string {
		return tx{proc: proc, call: call, ret: ret, id: id, typ: "ok", endInv: -1, sends: sends, polls: polls}.lines()
	}
	runRuleCases(t, []ruleCase{
		{"G0: T1 before T2 on p0, T2 before T1 on p1", cat(
			ok(1, 10, 30, "tx-1", []string{"0:a:0", "1:c:1"}), ok(2, 31, 40, "tx-2", []string{"0:b:1", "1:d:0"}),
			fin01(100, ends, "0:0:a", "0:1:b", "1:0:d", "1:1:c")),
			Options{}, Valid, map[string]int{G0: 1}, "G0: 1 write cycles among txns, not counted"},
		{"G1c: T1 reads T2's value and T2 reads T1's", cat(
			one(ok(1, 10, 30, "tx-1", []string{"0:a:0"}, []string{"1:0:b"})[0]),
			one(ok(2, 11, 31, "tx-2", []string{"1:b:0"}, []string{"0:0:a"})[0]),
			one(ok(1, 10, 30, "tx-1", []string{"0:a:0"}, []string{"1:0:b"})[1]),
			one(ok(2, 11, 31, "tx-2", []string{"1:b:0"}, []string{"0:0:a"})[1]),
			fin01(100, ends, "0:0:a", "1:0:b")),
			Options{}, Invalid, map[string]int{G1c: 1}, G1c},
		{"G1c of three txns", cat(
			one(ok(1, 10, 30, "tx-1", []string{"0:a:0"}, []string{"1:0:c"})[0]),
			one(ok(2, 11, 31, "tx-2", []string{"0:b:1"}, []string{"0:0:a"})[0]),
			one(ok(3, 12, 32, "tx-3", []string{"1:c:0"}, []string{"0:1:b"})[0]),
			one(ok(1, 10, 30, "tx-1", []string{"0:a:0"}, []string{"1:0:c"})[1]),
			one(ok(2, 11, 31, "tx-2", []string{"0:b:1"}, []string{"0:0:a"})[1]),
			one(ok(3, 12, 32, "tx-3", []string{"1:c:0"}, []string{"0:1:b"})[1]),
			fin01(100, ends, "0:0:a", "0:1:b", "1:0:c")),
			Options{}, Invalid, map[string]int{G1c: 1}, G1c},
		{"mixed: T1 -ww-> T2 -wr-> T1 is not reported", cat(
			one(ok(1, 10, 30, "tx-1", []string{"0:a:0"}, []string{"1:0:d"})[0]),
			ok(2, 11, 20, "tx-2", []string{"0:b:1", "1:d:0"}),
			one(ok(1, 10, 30, "tx-1", []string{"0:a:0"}, []string{"1:0:d"})[1]),
			fin01(100, ends, "0:0:a", "0:1:b", "1:0:d")),
			Options{}, Valid, nil, ""},
		{"no cycle: T2 after T1 everywhere, reading it", cat(
			ok(1, 10, 20, "tx-1", []string{"0:a:0", "1:c:0"}), ok(2, 30, 40, "tx-2", []string{"0:b:1", "1:d:1"}, []string{"0:0:a"}),
			fin01(100, ends, "0:0:a", "0:1:b", "1:0:c", "1:1:d")),
			Options{}, Valid, nil, ""},
		{"a failed txn is no vertex", cat(
			one(tx{proc: 1, call: 10, ret: 30, id: "tx-1", typ: "fail", endInv: -1, sends: []string{"0:a:0"}, polls: [][]string{{"1:0:b"}}}.lines()[0]),
			one(ok(2, 11, 31, "tx-2", []string{"1:b:0"}, []string{"0:0:a"})[0]),
			one(tx{proc: 1, call: 10, ret: 30, id: "tx-1", typ: "fail", endInv: -1, sends: []string{"0:a:0"}, polls: [][]string{{"1:0:b"}}}.lines()[1]),
			one(ok(2, 11, 31, "tx-2", []string{"1:b:0"}, []string{"0:0:a"})[1]),
			fin01(100, ends, "0:0:a", "1:0:b")),
			Options{}, Invalid, map[string]int{TxnAbortedRead: 1}, TxnAbortedRead},
	})
}

// TestTxnCycleSteps: a reported cycle names each edge's values and offsets.
func TestTxnCycleSteps(t *testing.T) {
	h := lines2hist(cat(
		okTx(1, 10, 30, "tx-1", "0:a:0", "1:c:1").lines(), okTx(2, 31, 40, "tx-2", "0:b:1", "1:d:0").lines(),
		fin01(100, map[int]int64{0: 2, 1: 2}, "0:0:a", "0:1:b", "1:0:d", "1:1:c"))...)
	res := mustCheck(t, h, Options{})
	if len(res.Anomalies.G0) != 1 {
		t.Fatalf("G0 = %+v", res.Anomalies.G0)
	}
	e := res.Anomalies.G0[0]
	if len(e.Txns) != 2 || e.Txns[0].TransactionalID != "tx-1" || e.Txns[0].Index != 0 || e.Txns[1].Index != 2 || e.SCCSize != 2 {
		t.Fatalf("txns %+v, scc %d", e.Txns, e.SCCSize)
	}
	want := []txncheck.CycleStep{
		{Type: "ww", From: 0, To: 1, Topic: "t", Partition: 0, Values: []string{"a", "b"}, Offsets: []int64{0, 1}},
		{Type: "ww", From: 1, To: 0, Topic: "t", Partition: 1, Values: []string{"d", "c"}, Offsets: []int64{0, 1}},
	}
	if len(e.Steps) != 2 {
		t.Fatalf("steps %+v", e.Steps)
	}
	for i, s := range e.Steps {
		w := want[i]
		if s.Type != w.Type || s.From != w.From || s.To != w.To || s.Partition != w.Partition ||
			!slices.Equal(s.Values, w.Values) || !slices.Equal(s.Offsets, w.Offsets) {
			t.Errorf("step %d = %+v, want %+v", i, s, w)
		}
	}
	for _, sub := range []string{`"tx-1" -ww-> "tx-2" (t-0: a at 0 before b at 1)`, `"tx-2" -ww-> "tx-1" (t-1: d at 0 before c at 1)`, "index 2, p2, ok"} {
		if !strings.Contains(e.Text, sub) {
			t.Errorf("text %q lacks %q", e.Text, sub)
		}
	}
	if !slices.ContainsFunc(res.Explanations, func(x Explanation) bool { return x.Kind == G0 && x.Text == e.Text }) {
		t.Errorf("no G0 explanation among %+v", res.Explanations)
	}
	if res.Counted(G0) || !res.Counted(G1c) {
		t.Errorf("counted G0 %v, G1c %v", res.Counted(G0), res.Counted(G1c))
	}
}
