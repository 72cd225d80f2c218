package checker

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"strconv"
	"testing"
	"time"
)

// Hostile shapes of observed-then-vanished values (issue 36 item 4): since
// what a reader saw was written, a value any read returned and a later
// final read lacks is lost whatever its send ended with, so unknown sends
// that a poll saw now reach the lost-write grouping. These shapes once
// took 46 s (one pass of the grouping per value at one offset).

// hostileVanished writes n sends that end info, a poll by one process that
// saw each of them (value i at offset off(i): a value at an offset already
// returned is a nonmonotonic poll too) and then finals completed
// final reads of partition 0 invoked one after the other, each holding
// nothing (the log was cut back to offset 0): every value is lost.
func hostileVanished(w io.Writer, n, finals int, off func(i int) int64) {
	bw := bufio.NewWriter(w)
	idx, at := 0, int64(0)
	line := func(proc int, typ, f, v string) {
		fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"%s","f":"%s","value":%s}`+"\n", idx, at, proc, typ, f, v)
		idx++
		at++
	}
	for i := range n {
		line(i, "invoke", "send", sendV(0, "u"+strconv.Itoa(i)))
	}
	for i := range n {
		line(i, "info", "send", sendV(0, "u"+strconv.Itoa(i)))
	}
	var recs bytes.Buffer
	for i := range n {
		if i > 0 {
			recs.WriteByte(',')
		}
		fmt.Fprintf(&recs, `{"partition":0,"offset":%d,"value":"u%d","leader_epoch":1}`, off(i), i)
	}
	line(n, "invoke", "poll", `{"topic":"t","partitions":[0]}`)
	line(n, "ok", "poll", fmt.Sprintf(`{"topic":"t","records":[%s]}`, recs.String()))
	for k := range finals {
		p := n + 1 + k
		line(p, "invoke", "final-read", `{"topic":"t","partitions":[0],"from":0}`)
		line(p, "ok", "final-read", `{"topic":"t","records":[],"end_offsets":{"0":0}}`)
	}
	bw.Flush()
}

// hostileVanishedOneOffset: n unknown sends that one poll saw, all at
// offset 0, one final read holding none of them.
func hostileVanishedOneOffset(w io.Writer, n int) {
	hostileVanished(w, n, 1, func(int) int64 { return 0 })
}

// hostileVanishedOffsets: n unknown sends that one poll saw at n/per
// offsets (per values at each), one final read holding none of them.
func hostileVanishedOffsets(w io.Writer, n, per int) {
	hostileVanished(w, n, 1, func(i int) int64 { return int64(i / per) })
}

// hostileVanishedFinals: n unknown sends that one poll saw at n offsets,
// and finals final reads, each holding none of them.
func hostileVanishedFinals(w io.Writer, n, finals int) {
	hostileVanished(w, n, finals, func(i int) int64 { return int64(i) })
}

// TestHostileVanished: the shapes above are judged (every value lost,
// every final read that lacks them named) and fast; BenchmarkHostile
// times them (well under 2 s each on 2 cores). The test allows 8 s of
// wall clock so that a loaded machine cannot fail it, yet fails on the
// per-value passes these shapes once took (28 to 46 s).
func TestHostileVanished(t *testing.T) {
	for _, c := range []struct {
		name   string
		write  func(io.Writer)
		counts map[string]int
	}{
		{"40,000 at one offset", func(w io.Writer) { hostileVanishedOneOffset(w, 40000) },
			map[string]int{LostWrite: 40000, OffsetReuse: 1, NonmonotonicPoll: 39999, Nonlinearizable: 1}},
		{"40,000 at 200 offsets", func(w io.Writer) { hostileVanishedOffsets(w, 40000, 200) },
			map[string]int{LostWrite: 40000, OffsetReuse: 200, NonmonotonicPoll: 39800, Nonlinearizable: 1}},
		{"40,000 lacked by 10,000 final reads", func(w io.Writer) { hostileVanishedFinals(w, 40000, 10000) },
			map[string]int{LostWrite: 40000, Nonlinearizable: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			c.write(&buf)
			start := cpuTime()
			res := mustCheck(t, buf.String(), Options{})
			if took := cpuTime() - start; took > 8*time.Second {
				t.Errorf("took %v of CPU, want at most 8 s", took)
			}
			if res.Valid != Invalid || !maps.Equal(res.Counts, c.counts) {
				t.Errorf("valid %v counts %v, want false %v", res.Valid, res.Counts, c.counts)
			}
		})
	}
}
