package checker

import (
	"fmt"
	"strings"
)

// Helpers that render group ops of group "g" on topic "t".

// sub is a member's subscribe (invoke and ok) as member name m.
func sub(proc int, at int64, m string) []string {
	v := fmt.Sprintf(`{"group":"g","member":%q,"topic":"t","protocol":"classic"}`, m)
	done := fmt.Sprintf(`{"group":"g","member":%q,"topic":"t","protocol":"classic","member_id":"%s-id"}`, m, m)
	return []string{ev(at, proc, "invoke", "subscribe", v), ev(at+1, proc, "ok", "subscribe", done)}
}

// subCont is a subscribe of process proc as member m that continues the
// client of process from (its op ended info).
func subCont(proc int, at int64, m string, from int) []string {
	v := fmt.Sprintf(`{"group":"g","member":%q,"topic":"t","protocol":"classic","continues":%d}`, m, from)
	return []string{ev(at, proc, "invoke", "subscribe", v), ev(at+1, proc, "ok", "subscribe", v)}
}

// gpoll is a group member's poll in generation gen returning rs ("P:OFF:VAL").
func gpoll(proc int, call, ret int64, gen int, rs ...string) []string {
	req := fmt.Sprintf(`{"topic":"t","partitions":[],"group":"g","member_id":"m","generation":%d}`, gen)
	return []string{ev(call, proc, "invoke", "poll", req), ev(ret, proc, "ok", "poll", fmt.Sprintf(`{"topic":"t","records":%s}`, recs(rs...)))}
}

// offs renders "P:O" pairs as a partition-keyed object.
func offs(ps ...string) string {
	var parts []string
	for _, p := range ps {
		f := strings.SplitN(p, ":", 2)
		parts = append(parts, fmt.Sprintf(`"%s":%s`, f[0], f[1]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// gcommit is a commit of "P:O" pairs in generation gen, completing typ.
func gcommit(proc int, call, ret int64, gen int, typ string, ps ...string) []string {
	v := fmt.Sprintf(`{"group":"g","member_id":"m","generation":%d,"topic":"t","offsets":%s}`, gen, offs(ps...))
	var errs []string
	if typ != "ok" {
		errs = append(errs, "ILLEGAL_GENERATION")
		if typ == "info" {
			errs[0] = "timeout"
		}
	}
	return []string{ev(call, proc, "invoke", "commit", v), ev(ret, proc, typ, "commit", v, errs...)}
}

// withEpochs adds leader_epochs (a JSON object, partition to epoch) to a
// commit's events.
func withEpochs(lines []string, epochs string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Replace(l, `"offsets":`, `"leader_epochs":`+epochs+`,"offsets":`, 1)
	}
	return out
}

// gauto is a commit the client made by itself (auto: true) of "P:O" pairs
// in generation gen, completing ok: recorded as the workload does, its
// invoke at once before its completion, at at.
func gauto(proc int, at int64, gen int, ps ...string) []string {
	v := fmt.Sprintf(`{"group":"g","member_id":"m","generation":%d,"topic":"t","offsets":%s,"auto":true}`, gen, offs(ps...))
	return []string{ev(at, proc, "invoke", "commit", v), ev(at, proc, "ok", "commit", v)}
}

// rebal is a rebalance learned at at: generation gen, partitions assigned
// and revoked.
func rebal(proc int, at int64, gen int, assigned, revoked []int) []string {
	v := fmt.Sprintf(`{"group":"g","member_id":"m","generation":%d,"topic":"t","assigned":%s,"revoked":%s}`,
		gen, jsonOf(orEmpty(assigned)), jsonOf(orEmpty(revoked)))
	return []string{ev(at, proc, "invoke", "rebalance", v), ev(at, proc, "ok", "rebalance", v)}
}

func orEmpty(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// acks sends values v0..v(n-1) of partition p at offsets 0..n-1 by
// process proc, from time at on (10 per op).
func acks(proc int, at int64, p, n int, prefix string) []string {
	var out []string
	for i := range n {
		out = append(out, send(proc, at+int64(i)*10, at+int64(i)*10+5, p, fmt.Sprintf("%s%d", prefix, i), "ok", int64(i))...)
	}
	return out
}

// finalAll is a completed final read of partition p holding rs, its end n.
func finalAll(call int64, p int, n int64, rs ...string) []string {
	return final(99, call, call+10, []int{p}, map[int]int64{p: n}, "ok", rs...)
}
