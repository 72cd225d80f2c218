package checker

import (
	"fmt"
	"strings"
	"testing"
)

// withTxnEnds adds high watermarks and last stable offsets (and, if open
// is not empty, open transactions "P:PID:EPOCH:FIRST:OPENMS") to a final
// read's completion line.
func withTxnEnds(l []string, hws, lsos map[int]int64, open ...string) []string {
	out := append([]string(nil), l...)
	m := func(x map[int]int64) string {
		var e []string
		for p, o := range x {
			e = append(e, fmt.Sprintf(`"%d":%d`, p, o))
		}
		return "{" + strings.Join(sortedStrings(e), ",") + "}"
	}
	extra := fmt.Sprintf(`,"high_watermarks":%s,"last_stable_offsets":%s`, m(hws), m(lsos))
	if len(open) > 0 {
		by := map[string][]string{}
		var keys []string
		for _, o := range open {
			var p, pid, epoch, first, ms int64
			fmt.Sscanf(o, "%d:%d:%d:%d:%d", &p, &pid, &epoch, &first, &ms)
			k := fmt.Sprint(p)
			if by[k] == nil {
				keys = append(keys, k)
			}
			by[k] = append(by[k], fmt.Sprintf(`{"producer_id":%d,"producer_epoch":%d,"coordinator_epoch":0,"first_offset":%d,"last_timestamp":1,"open_ms":%d,"hanging":true}`,
				pid, epoch, first, ms))
		}
		var parts []string
		for _, k := range sortedStrings(keys) {
			parts = append(parts, fmt.Sprintf(`%q:[%s]`, k, strings.Join(by[k], ",")))
		}
		extra += `,"open_txns":{` + strings.Join(parts, ",") + "}"
	}
	last := out[len(out)-1]
	out[len(out)-1] = strings.TrimSuffix(last, "}}") + extra + "}}"
	return out
}

// TestEveryFinalReadIsEvidence (issue 22, class 2): a value missing from
// any completed final read that should hold it is lost, whichever read
// came last; a read_committed read does not judge what lies at or past
// its end (the last stable offset) unless it recorded that nothing was
// held back there. Each case marked "new" was judged otherwise when only
// the final read invoked last was evidence.
func TestEveryFinalReadIsEvidence(t *testing.T) {
	noLin := Options{SkipLinearizability: true}
	a := send(0, 10, 20, 0, "a", "ok", 0)
	b := send(0, 21, 22, 0, "b", "ok", 1)
	ruEarly := final(8, 30, 35, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a")         // lacks b
	ruLate := final(9, 40, 45, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a", "0:1:b") // holds both
	ruHold := final(9, 25, 50, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a", "0:1:b") // holds both, invoked first
	// A read_committed read held at LSO 1 by an open txn at offset 1 (the
	// high watermark 3): it cannot see b, which is in the log.
	txnOpen := tx{proc: 3, call: 23, ret: 25, id: "tx-1", typ: "info", endInv: -1, sends: []string{"0:h:2"}}
	rcHeld := withTxnEnds(rcFinal(8, 50, 55, map[int]int64{0: 1, 1: 0}, "0:0:a"), map[int]int64{0: 3, 1: 0}, map[int]int64{0: 1, 1: 0})
	ru := final(9, 40, 45, []int{0, 1}, map[int]int64{0: 3, 1: 0}, "ok", "0:0:a", "0:1:b", "0:2:h")
	ruAfter := final(9, 60, 65, []int{0, 1}, map[int]int64{0: 3, 1: 0}, "ok", "0:0:a", "0:1:b", "0:2:h")
	rcNoHW := rcFinal(8, 50, 55, map[int]int64{0: 1, 1: 0}, "0:0:a")
	rcAllHW := withTxnEnds(rcFinal(8, 50, 55, map[int]int64{0: 1, 1: 0}, "0:0:a"), map[int]int64{0: 1, 1: 0}, map[int]int64{0: 1, 1: 0})
	c1 := okTx(1, 10, 20, "tx-c", "0:c:0")
	ruLacksC := final(8, 30, 35, []int{0, 1}, map[int]int64{0: 1, 1: 0}, "ok")
	rcHasC := rcFinal(9, 40, 45, map[int]int64{0: 1, 1: 0}, "0:0:c")
	runRuleCases(t, []ruleCase{
		{"new: an earlier read lacks an acked value that a later read holds", cat(a, b, ruEarly, ruLate),
			noLin, Invalid, map[string]int{LostWrite: 1}, ""},
		{"control: the read invoked last lacks it", cat(a, b, ruHold[:1], ruEarly, ruHold[1:]),
			noLin, Invalid, map[string]int{LostWrite: 1}, ""},
		{"new: a read_committed read invoked last, held back by an open txn, does not make b lost", cat(a, b, txnOpen.lines(), ru, rcHeld),
			noLin, Valid, nil, ""},
		{"control: the same reads, the read_uncommitted one last", cat(a, b, txnOpen.lines(), rcHeld, ruAfter),
			noLin, Valid, nil, ""},
		{"new: a read_committed read without high watermarks cannot judge past its end", cat(a, b, rcNoHW),
			noLin, Unknown, map[string]int{Unseen: 1}, "unseen: 1"},
		{"a read_committed read whose end is its high watermark judges past it", cat(a, b, rcAllHW),
			noLin, Invalid, map[string]int{LostWrite: 1}, ""},
		{"new: a committed txn's value missing from an earlier read, present in a later one", cat(c1.lines(), ruLacksC, rcHasC),
			noLin, Invalid, map[string]int{TxnLostWrite: 1}, ""},
	})
}

// TestWhatAReaderSawWasWritten (issue 22, class 4): a plain value that
// any read observed, or a txn's value that a read_committed read
// observed, is in the log; a later completed final read of its partition
// that lacks it makes it lost whatever its send or txn ended with. Each
// case marked "new" was judged otherwise before the rule.
func TestWhatAReaderSawWasWritten(t *testing.T) {
	noLin := Options{SkipLinearizability: true}
	a := send(0, 10, 20, 0, "a", "ok", 0)
	infoU := send(1, 21, 90, 0, "u", "info", -1, "timeout")
	fin := final(9, 100, 105, []int{0}, map[int]int64{0: 1}, "ok", "0:0:a")
	finBefore := final(9, 40, 105, []int{0}, map[int]int64{0: 1}, "ok", "0:0:a")
	infoTx := tx{proc: 2, call: 22, ret: 30, id: "tx-i", typ: "info", endInv: 25, sends: []string{"0:x:1"}, errText: "timeout"}
	failU := send(1, 21, 23, 0, "f", "fail", -1, "NOT_ENOUGH_REPLICAS")
	fin2 := final(9, 100, 105, []int{0}, map[int]int64{0: 2}, "ok", "0:0:a")
	runRuleCases(t, []ruleCase{
		{"new: an info send's value polled, then gone from the final read", cat(a, infoU[:1], poll(5, 30, 35, []int{0}, "0:0:a", "0:1:u"), infoU[1:], fin),
			noLin, Invalid, map[string]int{LostWrite: 1}, "lost-write: 1"},
		{"control: an info send never read, absent: not flagged", cat(a, infoU, fin),
			noLin, Valid, nil, ""},
		{"control: read after the final read was invoked: that read cannot judge it", cat(a, infoU[:1], finBefore[:1], poll(5, 50, 55, []int{0}, "0:0:a", "0:1:u"), infoU[1:], finBefore[1:]),
			noLin, Valid, nil, ""},
		{"new: an info txn's value read at read_committed, then gone", cat(a, infoTx.lines()[:1], rcPoll(5, 26, 28, "0:0:a", "0:1:x"), infoTx.lines()[1:], fin2),
			noLin, Invalid, map[string]int{TxnLostWrite: 1}, ""},
		{"control: an info txn's value read at read_uncommitted proves no commit", cat(a, infoTx.lines(), poll(5, 40, 45, []int{0}, "0:0:a", "0:1:x"), fin2),
			noLin, Valid, nil, ""},
		{"new: a failed send's value read (aborted-read), then gone (lost too)", cat(a, failU, poll(5, 30, 35, []int{0}, "0:0:a", "0:1:f"), fin2),
			noLin, Invalid, map[string]int{AbortedRead: 1, LostWrite: 1}, ""},
	})
}

// TestLostReadNotAckedEntry: the lost-write entry of a value never acked
// says how its send ended and which read saw it, and its explanation says
// how many were read but never acked.
func TestLostReadNotAckedEntry(t *testing.T) {
	h := lines2hist(cat(send(0, 10, 20, 0, "a", "ok", 0), send(1, 21, 90, 0, "u", "info", -1, "timeout")[:1],
		poll(5, 30, 35, []int{0}, "0:0:a", "0:1:u"), send(1, 21, 90, 0, "u", "info", -1, "timeout")[1:],
		final(9, 100, 105, []int{0}, map[int]int64{0: 1}, "ok", "0:0:a"))...)
	res := mustCheck(t, h, Options{SkipLinearizability: true})
	if len(res.Anomalies.LostWrite) != 1 {
		t.Fatalf("lost-write = %+v", res.Anomalies.LostWrite)
	}
	e := res.Anomalies.LostWrite[0]
	if e.Outcome != "info" || e.SeenS == nil || *e.SeenS != secs(35) || e.SeenBy != "poll p5" || e.Offset != 1 || e.AckedS != 0 {
		t.Errorf("entry = %+v", e)
	}
	var text string
	for _, x := range res.Explanations {
		if x.Kind == LostWrite {
			text = x.Text
		}
	}
	if !strings.Contains(text, "1 record (0 acked, 1 read but never acked) lost") {
		t.Errorf("explanation %q", text)
	}
}
