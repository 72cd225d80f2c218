package checker

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestVerdictRuleInOnePlace: the exit code and the list of what counts
// against validity are the checker's.
func TestVerdictRuleInOnePlace(t *testing.T) {
	for v, code := range map[Verdict]int{Valid: 0, Invalid: 1, Unknown: 2} {
		if v.ExitCode() != code {
			t.Errorf("%v exit %d, want %d", v, v.ExitCode(), code)
		}
	}
	if slices.Contains(CountsAgainst(false, false), Duplicate) || !slices.Contains(CountsAgainst(true, false), Duplicate) ||
		slices.Contains(CountsAgainst(true, false), Unseen) || !slices.Contains(CountsAgainst(false, false), Nonlinearizable) {
		t.Errorf("CountsAgainst: %v / %v", CountsAgainst(false, false), CountsAgainst(true, false))
	}
	res := mustCheck(t, lines2hist(cat(send(0, 1, 2, 0, "a", "ok", 0), final(9, 3, 4, []int{0}, map[int]int64{0: 1}, "ok", "0:0:a"))...), Options{})
	if !slices.Equal(res.Against, CountsAgainst(false, false)) {
		t.Errorf("result's list %v", res.Against)
	}
}

// nothingAckedReason begins the reason nothingAcked gives.
const nothingAckedReason = "nothing was acknowledged: "

// TestNothingAcked: a history that sent and acknowledged nothing, neither
// a plain send nor a commit, is unknown whatever else it shows (a real
// run on a compacted topic refused every keyless send with
// INVALID_RECORD and read VALID before the rule); one acknowledged send
// or commit, of either kind, and the history is judged as it stands.
func TestNothingAcked(t *testing.T) {
	ends := map[int]int64{0: 0}
	empty := final(9, 100, 105, []int{0}, ends, "ok")
	refused := func(proc int, val string) []string {
		return send(proc, 10+int64(2*proc), 11+int64(2*proc), 0, val, "fail", -1, "INVALID_RECORD")
	}
	failTx := tx{proc: 3, call: 20, ret: 30, id: "tx-1", typ: "fail", endInv: -1, sends: []string{"0:x:0"}, errText: "PRODUCER_FENCED"}.lines()
	abortTx := tx{proc: 3, call: 20, ret: 30, id: "tx-1", typ: "fail", abort: true, endInv: 25, sends: []string{"0:y:0"}}.lines()
	runRuleCases(t, []ruleCase{
		{"every send refused", cat(refused(0, "a"), refused(1, "b"), send(2, 14, 30, 0, "c", "info", -1, "timeout"), empty),
			Options{}, Unknown, nil, "nothing was acknowledged: 3 sends (2 failed, 1 unknown; INVALID_RECORD 2, timeout 1); no acknowledged record to check for loss"},
		{"ok without an offset (acks=0) is no acknowledgement", cat(refused(0, "a"), send(1, 14, 15, 0, "z", "ok", -1), empty),
			Options{}, Unknown, nil, "nothing was acknowledged: 2 sends (1 failed, 1 unknown; INVALID_RECORD 1, ok without an offset (acks=0) 1)"},
		{"one send acked with an offset: judged", cat(refused(0, "a"), send(1, 14, 15, 0, "z", "ok", 0), final(9, 100, 105, []int{0}, map[int]int64{0: 1}, "ok", "0:0:z")),
			Options{}, Valid, nil, ""},
		{"the only transaction failed", cat(failTx, empty),
			Options{}, Unknown, nil, "nothing was acknowledged: 1 transaction meant to commit (1 failed, 0 unknown; PRODUCER_FENCED 1)"},
		{"sends and a transaction, none acknowledged: both named", cat(refused(0, "a"), failTx, empty),
			Options{}, Unknown, nil, "1 send (1 failed, 0 unknown; INVALID_RECORD 1), 1 transaction meant to commit"},
		{"an aborted transaction is no commit: still nothing acknowledged", cat(refused(0, "a"), abortTx, empty),
			Options{}, Unknown, nil, "nothing was acknowledged: 1 send (1 failed"},
		{"a committed transaction beside refused sends: judged", cat(refused(0, "a"), okTx(3, 20, 30, "tx-1", "0:w:0").lines(), rcFinal(9, 100, 105, map[int]int64{0: 2, 1: 0}, "0:0:w")),
			Options{}, Valid, nil, ""},
		{"a lost write is invalid whatever else", cat(send(0, 10, 11, 0, "a", "ok", 0), empty),
			Options{SkipLinearizability: true}, Invalid, map[string]int{LostWrite: 1}, ""},
	})
	// The reason is in results.json's unexercised too (a suite reads it),
	// and only there when nothing was acknowledged.
	for _, tc := range []struct {
		lines []string
		want  int
	}{{cat(refused(0, "a"), empty), 1}, {cat(send(0, 10, 11, 0, "a", "ok", 0), finalAll(100, 0, 1, "0:0:a")), 0}, {empty, 1}} {
		res := mustCheck(t, lines2hist(tc.lines...), Options{})
		if len(res.Unexercised) != tc.want || tc.want > 0 && !strings.HasPrefix(res.Unexercised[0], "nothing was") {
			t.Errorf("unexercised %q, want %d", res.Unexercised, tc.want)
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), `"unexercised"`) != (tc.want > 0) {
			t.Errorf("results.json %s: unexercised written %v, want %v", b, !(tc.want > 0), tc.want > 0)
		}
	}
}

// TestGroupNothingExercised: a group whose members subscribed and were
// delivered nothing, with no commit acknowledged, leaves the verdict
// unknown; one delivery or one acknowledged commit and it is judged.
func TestGroupNothingExercised(t *testing.T) {
	acked := cat(send(0, 10, 15, 0, "v0", "ok", 0), send(0, 20, 25, 0, "v1", "ok", 1))
	fin := finalAll(900, 0, 2, "0:0:v0", "0:1:v1")
	runRuleCases(t, []ruleCase{
		{"subscribed, nothing delivered, the commit refused", cat(acked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1), gcommit(10, 140, 150, 1, "fail", "0:0"), fin),
			Options{}, Unknown, nil, "consumer groups: 1 member process subscribed, none was delivered a record and no commit was acknowledged (commits fail 1)"},
		{"subscribed, never assigned", cat(acked, sub(10, 100, "m0"), sub(11, 102, "m1"), fin),
			Options{}, Unknown, nil, "consumer groups: 2 member processes subscribed, none was delivered a record and no commit was acknowledged (no commit)"},
		{"one delivery: judged", cat(acked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), fin),
			Options{}, Valid, nil, ""},
		{"one acknowledged commit: judged", cat(acked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
			gcommit(10, 140, 150, 1, "ok", "0:0"), fin),
			Options{}, Valid, nil, ""},
	})
}
