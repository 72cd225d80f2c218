package checker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker/txncheck"
	"github.com/kchaos/kchaos/histories"
)

// writeTxnSynth writes a history of n committed txns by 16 processes, each
// of 4 sends over 8 partitions and one poll of two records of a txn 20
// before it (5 micro-operations each: 250,000 txns are 1.25M). Offsets
// follow invoke order, except that one pair of consecutive txns in a
// hundred swaps its order on one partition: G0 cycles, as concurrent
// producers make. No final read: the benchmark times the graph.
func writeTxnSynth(w io.Writer, n int) {
	rng := rand.New(rand.NewPCG(7, 7))
	next := make([]int64, 8)
	type sent struct {
		p   int
		off int64
	}
	at := make([][4]sent, n)
	for i := range n {
		for k := range 4 {
			p := (i + 2*k + rng.IntN(2)) % 8
			at[i][k] = sent{p, next[p]}
			next[p]++
		}
		if i > 0 && rng.IntN(100) == 0 {
			// Swap this txn's first offset with the previous txn's on that partition.
			p := at[i][0].p
			for k := range 4 {
				if at[i-1][k].p == p && at[i-1][k].off < at[i][0].off {
					at[i-1][k].off, at[i][0].off = at[i][0].off, at[i-1][k].off
					break
				}
			}
		}
	}
	idx := 0
	line := func(t int64, proc int, typ, v string) {
		fmt.Fprintf(w, `{"index":%d,"time":%d,"process":%d,"type":"%s","f":"txn","value":%s}`+"\n", idx, t, proc, typ, v)
		idx++
	}
	val := func(i, k int) string { return fmt.Sprintf("t%d-%d", i, k) }
	ops := func(i int, done bool) string {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"transactional_id":"tx-%d","intent":"commit","ops":[`, i%16)
		b.WriteString(`{"f":"poll","topic":"t","partitions":[0,1,2,3,4,5,6,7]`)
		if done {
			b.WriteString(`,"records":[`)
			if j := i - 20; j >= 0 {
				for k := range 2 {
					if k > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `{"partition":%d,"offset":%d,"value":"%s","leader_epoch":1}`, at[j][k].p, at[j][k].off, val(j, k))
				}
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
		for k := range 4 {
			fmt.Fprintf(&b, `,{"f":"send","topic":"t","partition":%d,"value":"%s"`, at[i][k].p, val(i, k))
			if done {
				fmt.Fprintf(&b, `,"offset":%d`, at[i][k].off)
			}
			b.WriteByte('}')
		}
		b.WriteString("]}")
		return b.String()
	}
	// Txn i is invoked at 2i and completes at 2i+30 (process i%16 is free
	// again at 2i+32): about 15 txns are open at once.
	for t := int64(0); ; t++ {
		if i := int(t / 2); t%2 == 0 && i < n {
			line(t, i%16, "invoke", ops(i, false))
		}
		if j := int((t - 30) / 2); t >= 30 && t%2 == 0 && j < n {
			line(t, j%16, "ok", ops(j, true))
		}
		if int((t-30)/2) >= n {
			return
		}
	}
}

// BenchmarkTxnCycles times the dependency-graph search (edges, Tarjan,
// the cycles of each component) on 250,000 txns of 4 sends and a poll
// (1.25M micro-operations), reporting the edges and cycles found and the
// heap it allocates. The history is parsed once, outside the timing
// (parse-add-s: reading and adding its events).
func BenchmarkTxnCycles(b *testing.B) {
	var buf bytes.Buffer
	writeTxnSynth(&buf, 250_000)
	c := newChecker(Options{})
	add0 := time.Now()
	rd := histories.NewReader(bytes.NewReader(buf.Bytes()))
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Add(&e); err != nil {
			b.Fatal(err)
		}
	}
	addS := time.Since(add0).Seconds()
	c.closeOpen()
	a := &analysis{c: c, r: &Result{}}
	a.prepare()
	in := a.input()
	out := new(txncheck.TxnAnomalies)
	var ww, wr int
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		*out = txncheck.TxnAnomalies{}
		ww, wr = txncheck.Cycles(in, out)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/search")
	b.ReportMetric(float64(ww), "ww-edges")
	b.ReportMetric(float64(wr), "wr-edges")
	b.ReportMetric(float64(len(out.G0)), "G0")
	b.ReportMetric(float64(len(out.G1c)), "G1c")
	b.ReportMetric(float64(len(c.TxnSends)+len(c.TxnPolls)), "micro-ops")
	b.ReportMetric(addS, "parse-add-s")
}
