package checker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// lines2hist builds a history from lines without "index": each line is an event
// object whose index is filled in from its place.
func lines2hist(lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		if strings.HasPrefix(l, "{") && !strings.HasPrefix(l, `{"index"`) && l != "{" {
			l = fmt.Sprintf(`{"index":%d,%s`, i, l[1:])
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// ev renders one event (without index); v is the raw value or "".
func ev(at int64, proc int, typ, f, v string, errText ...string) string {
	s := fmt.Sprintf(`{"time":%d,"process":%d,"type":"%s","f":"%s"`, at, proc, typ, f)
	if v != "" {
		s += `,"value":` + v
	}
	if len(errText) > 0 {
		s += fmt.Sprintf(`,"error":%q`, errText[0])
	}
	return s + "}"
}

func sendV(p int, val string) string {
	return fmt.Sprintf(`{"topic":"t","partition":%d,"value":%q}`, p, val)
}

func ackV(p int, val string, off int64) string {
	return fmt.Sprintf(`{"topic":"t","partition":%d,"value":%q,"offset":%d}`, p, val, off)
}

// send is an invoke and its completion; typ ok with off >= 0 acks at off.
func send(proc int, call, ret int64, p int, val string, typ string, off int64, errText ...string) []string {
	done := sendV(p, val)
	if typ == "ok" && off >= 0 {
		done = ackV(p, val, off)
	}
	return []string{ev(call, proc, "invoke", "send", sendV(p, val)), ev(ret, proc, typ, "send", done, errText...)}
}

// recs renders records "p:off:val" of topic t.
func recs(rs ...string) string {
	var parts []string
	for _, r := range rs {
		var p int
		var off int64
		var val string
		f := strings.SplitN(r, ":", 3)
		fmt.Sscan(f[0], &p)
		fmt.Sscan(f[1], &off)
		val = f[2]
		parts = append(parts, fmt.Sprintf(`{"partition":%d,"offset":%d,"value":%q,"leader_epoch":1}`, p, off, val))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// final is a final read of partitions ps invoked at call, ending typ at ret.
func final(proc int, call, ret int64, ps []int, ends map[int]int64, typ string, rs ...string) []string {
	req := fmt.Sprintf(`{"topic":"t","partitions":%s,"from":0}`, jsonOf(ps))
	var e []string
	for p, o := range ends {
		e = append(e, fmt.Sprintf(`"%d":%d`, p, o))
	}
	v := fmt.Sprintf(`{"topic":"t","records":%s,"end_offsets":{%s}}`, recs(rs...), strings.Join(sortedStrings(e), ","))
	return []string{ev(call, proc, "invoke", "final-read", req), ev(ret, proc, typ, "final-read", v)}
}

func poll(proc int, call, ret int64, ps []int, rs ...string) []string {
	req := fmt.Sprintf(`{"topic":"t","partitions":%s}`, jsonOf(ps))
	return []string{ev(call, proc, "invoke", "poll", req), ev(ret, proc, "ok", "poll", fmt.Sprintf(`{"topic":"t","records":%s}`, recs(rs...)))}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// cat joins line groups.
func cat(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(l string) []string { return []string{l} }

func mustCheck(t *testing.T, h string, opts Options) *Result {
	t.Helper()
	if opts.PorcupineTimeout == 0 {
		opts.PorcupineTimeout = 20 * time.Second
	}
	res, err := checkReader(strings.NewReader(h), opts)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, h)
	}
	return res
}
