package checker

import (
	"fmt"
	"strings"
)

// tx is a txn op for tests: sends "P:VAL" (not acked) or "P:VAL:OFF"
// (acked inside the txn at OFF); polls list each poll micro-op's records
// "P:OFF:VAL" (polls come first in its ops, as in Jepsen's read-then-write
// txns). endInv < 0 records no end_invoked.
type tx struct {
	proc      int
	call, ret int64
	id, typ   string // typ: ok, fail or info
	abort     bool
	endInv    int64
	sends     []string
	polls     [][]string
	errText   string
}

func (x tx) lines() []string {
	intent := "commit"
	if x.abort {
		intent = "abort"
	}
	var inv, done []string
	for _, p := range x.polls {
		inv = append(inv, `{"f":"poll","topic":"t","partitions":[0,1]}`)
		done = append(done, fmt.Sprintf(`{"f":"poll","topic":"t","partitions":[0,1],"records":%s}`, recs(p...)))
	}
	for _, s := range x.sends {
		f := strings.Split(s, ":")
		op := fmt.Sprintf(`{"f":"send","topic":"t","partition":%s,"value":%q}`, f[0], f[1])
		inv = append(inv, op)
		if len(f) > 2 {
			op = fmt.Sprintf(`{"f":"send","topic":"t","partition":%s,"value":%q,"offset":%s}`, f[0], f[1], f[2])
		}
		done = append(done, op)
	}
	head := fmt.Sprintf(`{"transactional_id":%q,"intent":%q`, x.id, intent)
	end := ""
	if x.endInv >= 0 {
		end = fmt.Sprintf(`,"end_invoked":%d`, x.endInv)
	}
	invoke := ev(x.call, x.proc, "invoke", "txn", head+`,"ops":[`+strings.Join(inv, ",")+"]}")
	var errs []string
	if x.errText != "" {
		errs = append(errs, x.errText)
	}
	complete := ev(x.ret, x.proc, x.typ, "txn", head+`,"ops":[`+strings.Join(done, ",")+"]"+end+"}", errs...)
	return []string{invoke, complete}
}

// okTx is a committed txn without end_invoked.
func okTx(proc int, call, ret int64, id string, sends ...string) tx {
	return tx{proc: proc, call: call, ret: ret, id: id, typ: "ok", endInv: -1, sends: sends}
}

// rcPoll is a read_committed poll.
func rcPoll(proc int, call, ret int64, rs ...string) []string {
	return []string{ev(call, proc, "invoke", "poll", `{"topic":"t","partitions":[0,1],"isolation":"read_committed"}`),
		ev(ret, proc, "ok", "poll", fmt.Sprintf(`{"topic":"t","records":%s}`, recs(rs...)))}
}

// rcFinal is a completed read_committed final read of partitions 0 and 1.
func rcFinal(proc int, call, ret int64, ends map[int]int64, rs ...string) []string {
	l := final(proc, call, ret, []int{0, 1}, ends, "ok", rs...)
	l[0] = strings.Replace(l[0], `"from":0`, `"from":0,"isolation":"read_committed"`, 1)
	return l
}

// fin01 is a completed read_uncommitted final read of partitions 0 and 1.
func fin01(call int64, ends map[int]int64, rs ...string) []string {
	return final(9, call, call+5, []int{0, 1}, ends, "ok", rs...)
}
