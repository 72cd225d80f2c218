package checker

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// writeLate writes a history of n acked sends on one partition by one
// process, in offset order, except that offset hole is left free and taken
// by a last send invoked after every other ack: a real-time order violation
// that only the linearizability model sees (no offset is reused, no
// process goes back). The final read holds everything.
func writeLate(w io.Writer, n int, hole int64) {
	bw := bufio.NewWriter(w)
	idx, at := 0, int64(0)
	line := func(proc int, typ, f, v string) {
		at++
		fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"%s","f":"%s","value":%s}`+"\n", idx, at, proc, typ, f, v)
		idx++
	}
	off := int64(0)
	var recs bytes.Buffer
	rec := func(o int64, v string) {
		if recs.Len() > 0 {
			recs.WriteByte(',')
		}
		fmt.Fprintf(&recs, `{"partition":0,"offset":%d,"value":"%s","leader_epoch":1}`, o, v)
	}
	held := map[int64]string{}
	for i := range n {
		if off == hole {
			off++
		}
		v := "v" + strconv.Itoa(i)
		line(0, "invoke", "send", sendV(0, v))
		line(0, "ok", "send", ackV(0, v, off))
		held[off] = v
		off++
	}
	line(1, "invoke", "send", sendV(0, "late"))
	line(1, "ok", "send", ackV(0, "late", hole))
	held[hole] = "late"
	for o := range off {
		rec(o, held[o])
	}
	line(9, "invoke", "final-read", `{"topic":"t","partitions":[0],"from":0}`)
	line(9, "ok", "final-read", fmt.Sprintf(`{"topic":"t","records":[%s],"end_offsets":{"0":%d}}`, recs.String(), off))
	bw.Flush()
}

// TestVerdictIndependentOfLength (class 4): a send invoked after later
// offsets were acked, yet given a lower offset, is found in a short history
// (checked whole) and in a long one (checked in windows).
func TestVerdictIndependentOfLength(t *testing.T) {
	// 3000 is checked whole and passed before issue 9 too; it is the
	// control: 6000 and 12000 are checked in windows and failed then.
	for _, n := range []int{3000, 6000, 12000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var buf bytes.Buffer
			writeLate(&buf, n, defaultWindow-1)
			res := mustCheck(t, buf.String(), Options{})
			if res.Valid != Invalid || res.Counts[Nonlinearizable] != 1 {
				t.Fatalf("valid %v, counts %v, linearizable %+v; want false with nonlinearizable 1", res.Valid, res.Counts, res.Linearizable)
			}
		})
	}
}

// hostile histories (class 6): memory and time follow what the history
// holds, not the offsets it names.
func hostileSparse(w io.Writer) {
	bw := bufio.NewWriter(w)
	var recs bytes.Buffer
	idx, i := 0, 0
	for p := range 8 {
		for k := range 15 {
			off := int64(4000) * (int64(1)<<k - 1) // each past twice the one before: 4000 * 16383 < 2^26
			v := "s" + strconv.Itoa(i)
			fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"invoke","f":"send","value":%s}`+"\n", idx, 2*i, i, sendV(p, v))
			fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"ok","f":"send","value":%s}`+"\n", idx+1, 2*i+1, i, ackV(p, v, off))
			idx += 2
			if recs.Len() > 0 {
				recs.WriteByte(',')
			}
			fmt.Fprintf(&recs, `{"partition":%d,"offset":%d,"value":"%s","leader_epoch":1}`, p, off, v)
			i++
		}
	}
	fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"invoke","f":"final-read","value":{"topic":"t","partitions":[0,1,2,3,4,5,6,7]}}`+"\n", idx, 2*i, i)
	fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"ok","f":"final-read","value":{"topic":"t","records":[%s]}}`+"\n", idx+1, 2*i+1, i, recs.String())
	bw.Flush()
}

// hostileOneOffset: n acked sends all at offset 0 (one value each).
func hostileOneOffset(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	for i := range n {
		fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"invoke","f":"send","value":%s}`+"\n", i, i, i, sendV(0, "o"+strconv.Itoa(i)))
	}
	for i := range n {
		fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":%d,"type":"ok","f":"send","value":%s}`+"\n", n+i, n+i, i, ackV(0, "o"+strconv.Itoa(i), 0))
	}
	bw.Flush()
}

// hostileOneValue: one send whose value polls return at n offsets.
func hostileOneValue(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"index":0,"time":0,"process":0,"type":"invoke","f":"send","value":%s}`+"\n", sendV(0, "x"))
	fmt.Fprintf(bw, `{"index":1,"time":1,"process":0,"type":"ok","f":"send","value":%s}`+"\n", ackV(0, "x", 0))
	idx := 2
	for i := 0; i < n; i += 100 {
		var recs bytes.Buffer
		for o := i; o < min(i+100, n); o++ {
			if recs.Len() > 0 {
				recs.WriteByte(',')
			}
			fmt.Fprintf(&recs, `{"partition":0,"offset":%d,"value":"x","leader_epoch":1}`, o)
		}
		fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":1,"type":"invoke","f":"poll","value":{"topic":"t","partitions":[0]}}`+"\n", idx, 2+idx)
		fmt.Fprintf(bw, `{"index":%d,"time":%d,"process":1,"type":"ok","f":"poll","value":{"topic":"t","records":[%s]}}`+"\n", idx+1, 3+idx, recs.String())
		idx += 2
	}
	bw.Flush()
}

func TestHostileShapes(t *testing.T) {
	for _, c := range []struct {
		name     string
		write    func(io.Writer)
		maxAlloc uint64
		maxTime  time.Duration
		valid    Verdict
		counts   map[string]int
	}{
		// The issue asks for 2 s each; BenchmarkHostile measures that (0.4 s
		// and less on 2 cores). The test allows 4 s of wall clock, so that
		// it cannot flake on a loaded machine, yet fails on the quadratic
		// search this shape once took (5 to 8 s).
		{"sparse offsets up to 2^26", hostileSparse, 64 << 20, 4 * time.Second, Valid, nil},
		{"40,000 values at one offset", func(w io.Writer) { hostileOneOffset(w, 40000) }, 1 << 30, 4 * time.Second, Invalid,
			map[string]int{OffsetReuse: 1, Nonlinearizable: 1, Unseen: 40000}},
		{"one value at 40,000 offsets", func(w io.Writer) { hostileOneValue(w, 40000) }, 1 << 30, 4 * time.Second, Unknown,
			map[string]int{Duplicate: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			c.write(&buf)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			res := mustCheck(t, buf.String(), Options{})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes of history: %v, %d MiB allocated", buf.Len(), took, alloc>>20)
			if res.Valid != c.valid {
				t.Errorf("valid %v, want %v: %q", res.Valid, c.valid, res.Reasons)
			}
			if got := res.Counts; len(got)+len(c.counts) > 0 && !maps.Equal(got, c.counts) {
				t.Errorf("counts %v, want %v", got, c.counts)
			}
			if alloc > c.maxAlloc {
				t.Errorf("allocated %d MiB, want at most %d", alloc>>20, c.maxAlloc>>20)
			}
			if took > c.maxTime {
				t.Errorf("took %v, want at most %v", took, c.maxTime)
			}
		})
	}
}
