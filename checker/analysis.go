package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/histories"
)

// Result judges the history added so far. Call it once, after the last Add.
func (c *Checker) Result() *Result {
	c.closeOpen()
	r := &Result{Idempotent: c.opts.Idempotent}
	a := &analysis{c: c, r: r}
	a.prepare() // the shared judgements (finals.go)
	for _, d := range analyzers {
		d.analyze(a)
	}
	for _, d := range analyzers {
		d.explain(a)
	}
	r.Stats = a.stats()
	r.Counts = r.Anomalies.counts()
	a.verdict()
	return r
}

// closeOpen ends the ops still open when the history ends as Jepsen does:
// their outcome is unknown (info). A final read still open did not complete.
func (c *Checker) closeOpen() {
	procs := make([]int, 0, len(c.open))
	for p := range c.open {
		procs = append(procs, p)
	}
	slices.Sort(procs)
	for _, p := range procs {
		pd := c.open[p]
		switch pd.f {
		case histories.FSend:
			c.sends[pd.send].typ = opInfo
			c.sends[pd.send].ret = -1
		case histories.FFinalRead:
			c.failed = append(c.failed, finalTry{proc: p, typ: "open", at: pd.call, tps: pd.tps})
		case histories.FTxn:
			c.txns[pd.txn].typ = opInfo
		case histories.FCommit:
			c.commits[pd.gp.commit].typ = opInfo
		}
	}
	c.open = map[int]*pending{}
}

// analysis holds what the checks share while the Result is built.
type analysis struct {
	c     *Checker
	r     *Result
	inFin []uint64   // values in some completed final read of their partition
	held  [][]uint64 // per completed final read, the values it holds (finals.go)
	// First observations that prove a write the ack did not (finals.go):
	// per plain send, and per txn send (read_committed reads only).
	seenPlain, seenTxn map[int32]seenAt
	lostBy             map[int32]int32              // lost send -> the final read that lacks it
	lostSeen           map[int32]seenAt             // lost send not acked with an offset -> its observation
	txnMissing         map[int32]int32              // txn send missing from a final read that should hold it -> that read
	faults             []int                        // nemesis ops that make a fault, by time
	lost               []int32                      // lost sends, in send order
	acked              [][]int32                    // per partition, its sends acked with an offset, in send order
	ackApp             []int32                      // send -> its append in the partition's porcupine history
	rt                 map[int32]*RealTimeViolation // per partition, from realTime
	tsFin              []int64                      // txn send -> its value's offset in the last final read holding it, or -1
	wwN                int                          // edges of the txn dependency graph
	wrN                int                          //
	// Consumer groups (groupcheck.go).
	dels          map[groupTP][]delivery // deliveries per group and partition, in completion order
	delivered     []map[int32]bool       // group -> values its members delivered
	lostByCommitN int                    // records lost by commit
	redeliveredN  int                    // records delivered again
}

func (a *analysis) prepare() {
	c := a.c
	a.prepareFinals()
	for i, op := range c.nem {
		if !healing(op.f) {
			a.faults = append(a.faults, i)
		}
	}
	a.acked = make([][]int32, len(c.tps))
	for i := range c.sends {
		if s := &c.sends[i]; s.typ == opOK {
			a.acked[s.tp] = append(a.acked[s.tp], int32(i))
		}
	}
}

// finalRecs returns the records of tp in its last completed final read,
// by offset.
func (a *analysis) finalRecs(tp int32) []rec {
	f := a.c.tps[tp].final
	if f < 0 {
		return nil
	}
	op := a.c.finals[f]
	recs := a.c.recs[op.start:op.end]
	lo := sort.Search(len(recs), func(i int) bool { return recs[i].TP >= tp })
	hi := sort.Search(len(recs), func(i int) bool { return recs[i].TP > tp })
	return recs[lo:hi]
}

// finalAt returns the final read's record of tp at off.
func (a *analysis) finalAt(tp int32, off int64) (rec, bool) {
	recs := a.finalRecs(tp)
	i := sort.Search(len(recs), func(i int) bool { return recs[i].Off >= off })
	if i < len(recs) && recs[i].Off == off {
		return recs[i], true
	}
	return rec{}, false
}

func secs(t int64) float64 { return math.Round(float64(t)/1e6) / 1e3 }

// where describes partition tp at time t.
func (a *analysis) where(tp int32, t int64) Where {
	var w Where
	if o := a.c.tps[tp].at(t); o != nil {
		leader, epoch, at := o.leader, o.epoch, secs(o.at)
		w.Leader, w.LeaderEpoch, w.ObservedS, w.ISR, w.ELR = &leader, &epoch, &at, o.isr, o.elr
	}
	w.LastFault = a.faultBefore(t)
	return w
}

// faultBefore returns the last fault made at or before t.
func (a *analysis) faultBefore(t int64) *FaultRef {
	i := sort.Search(len(a.faults), func(i int) bool { return a.c.nem[a.faults[i]].call > t })
	if i == 0 {
		return nil
	}
	f := a.faultRef(a.faults[i-1])
	return &f
}

func (a *analysis) faultRef(i int) FaultRef {
	op := a.c.nem[i]
	return FaultRef{F: op.f, Fault: op.v.Fault, Nodes: op.v.Nodes, AtS: secs(op.call), Details: op.v.Details}
}

// lostAndUnseen finds the sends missing from a completed final read that
// should hold them (a.lost, with the read in a.lostBy; explain makes their
// entries, knowing their ranges) and, where no read could judge them,
// those no read holds (unseen). A send acked with an offset is known from
// its ack; any other send whose value a read observed, from that read
// (finals.go).
func (a *analysis) lostAndUnseen() {
	c := a.c
	a.lostBy, a.lostSeen = map[int32]int32{}, map[int32]seenAt{}
	for i := range c.sends {
		s := &c.sends[i]
		seen, wasSeen := a.seenPlain[int32(i)]
		off, at := s.off, s.ret
		switch {
		case s.typ == opOK:
			if wasSeen && seen.at < at {
				at = seen.at
			}
		case wasSeen:
			off, at = seen.off, seen.at
		default:
			continue
		}
		t := c.tps[s.tp]
		j, miss := a.judge(s.val, s.tp, off, at)
		switch {
		case j == judgedLost:
			a.lost = append(a.lost, int32(i))
			a.lostBy[int32(i)] = miss
			if s.typ != opOK {
				a.lostSeen[int32(i)] = seen
			}
		case s.typ != opOK:
		case j == judgedUnseen, j == judgedNoFinal && !c.vals[s.val].polled:
			// Acked once every final read was under way (or after it), or
			// on a partition without one and never polled: absence proves
			// nothing. Unseen, not lost.
			a.r.Anomalies.Unseen = append(a.r.Anomalies.Unseen, SendEntry{
				Topic: t.topic, Partition: t.partition, Value: c.vals[s.val].str, Offset: s.off,
				Process: int(s.proc), AckedS: secs(s.ret), AtAck: a.where(s.tp, s.ret)})
		}
	}
}

// reuse finds offsets that held more than one value, with who saw each.
func (a *analysis) reuse() {
	c := a.c
	idx := map[tpOff]*OffsetReuseEntry{}
	// (partition, offset, value) -> its place in the entry's Values. The
	// partition is in the key: two partitions may reuse one offset with
	// one value (a value re-sent to another partition), each in its own
	// entry (found by FuzzHistory; testdata/fuzz/FuzzHistory/e65541d671ebee03).
	type tpOffVal struct {
		tp  int32
		off int64
		val int32
	}
	pos := map[tpOffVal]int{}
	var entries []*OffsetReuseEntry
	for tp, t := range c.tps {
		for _, off := range t.offs.reused() {
			e := &OffsetReuseEntry{Topic: t.topic, Partition: t.partition, Offset: off}
			for i, v := range t.offs.values(off) {
				e.Values = append(e.Values, Observed{Value: c.vals[v].str, FirstS: math.Inf(1)})
				pos[tpOffVal{int32(tp), off, v}] = i
			}
			idx[tpOff{int32(tp), off}] = e
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return
	}
	see := func(tp int32, off int64, val int32, at int64, src string, epoch *int32) {
		e := idx[tpOff{tp, off}]
		if e == nil {
			return
		}
		if i, ok := pos[tpOffVal{tp, off, val}]; ok {
			o := &e.Values[i]
			o.FirstS = min(o.FirstS, secs(at))
			if len(o.Sources) < 6 {
				o.Sources = append(o.Sources, src)
			}
			if epoch != nil && !slices.Contains(o.LeaderEpochs, *epoch) {
				o.LeaderEpochs = append(o.LeaderEpochs, *epoch)
				if st := c.tps[tp].epochStart(*epoch); st != nil && !slices.Contains(o.Leaders, st.leader) {
					o.Leaders = append(o.Leaders, st.leader)
				}
			}
			if s, ts := c.writer(val, tp, off); o.Send == "" && s >= 0 {
				o.Send = a.sendWords(s)
			} else if o.Send == "" && ts >= 0 {
				o.Send = a.txnWords(ts)
			}
		}
	}
	for i := range c.sends {
		if s := &c.sends[i]; s.typ == opOK {
			see(s.tp, s.off, s.val, s.ret, fmt.Sprintf("send p%d acked at %.1f s", s.proc, secs(s.ret)), nil)
		}
	}
	for i := range c.txnSends {
		if s := &c.txnSends[i]; s.off >= 0 {
			t := &c.txns[s.txn]
			see(s.tp, s.off, s.val, max(t.ret, t.call), fmt.Sprintf("txn %q p%d acked inside it", c.txnIDs.list[t.id], t.proc), nil)
		}
	}
	a.eachRead(func(f string, op *readOp, r *rec) {
		epoch := r.Epoch
		see(r.TP, r.Off, r.Val, op.ret, fmt.Sprintf("%s p%d at %.1f s", f, op.proc, secs(op.ret)), &epoch)
	})
	for _, e := range entries {
		for i := range e.Values {
			if len(e.Values[i].Sources) == 6 {
				e.Values[i].Sources[5] = "..."
			}
			if math.IsInf(e.Values[i].FirstS, 1) {
				e.Values[i].FirstS = 0
			}
		}
		slices.SortStableFunc(e.Values, func(x, y Observed) int { return cmp.Compare(x.FirstS, y.FirstS) })
		a.r.Anomalies.OffsetReuse = append(a.r.Anomalies.OffsetReuse, *e)
	}
}

// unfinishedFinal names a final read that ended info or fail in sources.
const unfinishedFinal = "unfinished final-read"

// eachRead calls fn on every record of every completed poll and final
// read, of every unfinished final read that returned records, and of
// every txn's polls.
func (a *analysis) eachRead(fn func(f string, op *readOp, r *rec)) {
	for _, set := range []struct {
		f   string
		ops []readOp
	}{{histories.FPoll, a.c.polls}, {histories.FFinalRead, a.c.finals}, {unfinishedFinal, a.c.partials}, {txnPoll, a.c.txnPolls}} {
		for i := range set.ops {
			op := &set.ops[i]
			for j := op.start; j < op.end; j++ {
				fn(set.f, op, &a.c.recs[j])
			}
		}
	}
}

// txnPoll names a txn's poll micro-operation in sources.
const txnPoll = "txn poll"

func (a *analysis) sendWords(s int32) string {
	op, err := &a.c.sends[s], a.c.sendErr[s]
	switch op.typ {
	case opOK:
		return fmt.Sprintf("acked at offset %d (p%d, %.1f s)", op.off, op.proc, secs(op.ret))
	case opOKNoOffset:
		return fmt.Sprintf("ok without offset (acks=0, p%d)", op.proc)
	case opFail:
		return fmt.Sprintf("failed %s (p%d, %.1f s)", err, op.proc, secs(op.ret))
	}
	if err != "" {
		return fmt.Sprintf("unknown outcome: %s (p%d)", err, op.proc)
	}
	return fmt.Sprintf("unknown outcome (p%d)", op.proc)
}

func (a *analysis) sendRef(s int32) *SendRef {
	op := &a.c.sends[s]
	ref := &SendRef{Process: int(op.proc), Error: a.c.sendErr[s], InvokedS: secs(op.call)}
	if op.ret >= 0 {
		ref.DoneS = secs(op.ret)
	}
	switch op.typ {
	case opOK:
		off := op.off
		ref.Type, ref.Offset = "ok", &off
	case opOKNoOffset:
		ref.Type = "ok"
	case opFail:
		ref.Type = "fail"
	default:
		ref.Type = "info"
	}
	return ref
}
