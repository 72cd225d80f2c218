package txncheck

import (
	"cmp"
	"slices"

	"github.com/kchaos/kchaos/checker/model"
)

// The dependency graph of txns, as Jepsen's kafka workload builds it
// (after Adya): its vertices are the txns that may have committed (ok and
// info; a failed txn is no vertex, whatever read it). An edge T1 -ww-> T2
// says that on some partition a value of T1 immediately precedes a value
// of T2 in the offset (version) order of the txn values there; T1 -wr->
// T2 says that a poll of T2 read a value T1 sent. No txn has an edge to
// itself.
//
// A cycle of ww edges alone is G0 and one of wr edges alone G1c; each is
// searched in its own subgraph (ww edges only, wr edges only), so a cycle
// that needs both kinds is not reported. That is the point: Kafka does not
// isolate the writes of concurrent txns (their records interleave on a
// partition, so G0 is expected and does not count against validity), and
// a cycle mixing ww and wr edges follows from the same interleaving
// (Jepsen's allowed-error-types lists both); but a wr-only cycle means
// each txn read what another wrote before it committed, which
// read_committed forbids (G1c counts).
//
// The search is linear: strongly connected components by an iterative
// Tarjan (no recursion: a component of a million txns must not exhaust
// the stack), then in each component with more than one txn a
// breadth-first search from its first txn, inside the component, for the
// shortest cycle through that txn.

// txnEdge is one edge: ww (v1 at o1 precedes v2 at o2 on tp) or wr (the
// reader read v1 at o1 of tp, with leader epoch epoch).
type txnEdge struct {
	from, to int32 // vertices
	tp       int32
	v1, v2   int32
	o1, o2   int64
	epoch    int32 // wr: the record's leader epoch; ww: -1
}

// txnGraph is a graph in compressed rows: the edges of v are
// edges[head[v]:head[v+1]], in the order they were found.
type txnGraph struct {
	head  []int32
	edges []txnEdge
}

// newTxnGraph sorts es by source, stably (a counting sort: linear).
func newTxnGraph(n int, es []txnEdge) *txnGraph {
	g := &txnGraph{head: make([]int32, n+1), edges: make([]txnEdge, len(es))}
	for i := range es {
		g.head[es[i].from+1]++
	}
	for v := 0; v < n; v++ {
		g.head[v+1] += g.head[v]
	}
	next := slices.Clone(g.head[:n])
	for i := range es {
		f := es[i].from
		g.edges[next[f]] = es[i]
		next[f]++
	}
	return g
}

// sccs numbers the strongly connected components of g (iterative Tarjan).
func (g *txnGraph) sccs() (comp []int32, sizes []int32) {
	n := len(g.head) - 1
	index, low := make([]int32, n), make([]int32, n)
	comp = make([]int32, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	onStack := make([]bool, n)
	var stack []int32
	type frame struct{ v, e int32 }
	var call []frame
	next := int32(0)
	visit := func(v int32) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		call = append(call, frame{v, g.head[v]})
	}
	for s := range int32(n) {
		if index[s] >= 0 {
			continue
		}
		visit(s)
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.e < g.head[v+1] {
				w := g.edges[f.e].to
				f.e++
				switch {
				case index[w] < 0:
					visit(w)
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				id := int32(len(sizes))
				var size int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = id
					size++
					if w == v {
						break
					}
				}
				sizes = append(sizes, size)
			}
		}
	}
	return comp, sizes
}

// cycles returns, for each component of more than one vertex, the
// shortest cycle through its first vertex (as edges), by first vertex.
func (g *txnGraph) cycles() (out [][]*txnEdge, sccSize []int32) {
	comp, sizes := g.sccs()
	n := len(g.head) - 1
	done := make([]bool, len(sizes))
	parent := make([]int32, n) // the edge that reached a vertex, -1 none
	for i := range parent {
		parent[i] = -1
	}
	var queue, touched []int32
	for root := range int32(n) {
		c := comp[root]
		if sizes[c] < 2 || done[c] {
			continue
		}
		done[c] = true
		queue, touched = append(queue[:0], root), touched[:0]
		closing := int32(-1)
	search:
		for qi := 0; qi < len(queue); qi++ {
			u := queue[qi]
			for e := g.head[u]; e < g.head[u+1]; e++ {
				w := g.edges[e].to
				switch {
				case comp[w] != c:
				case w == root:
					closing = e
					break search
				case parent[w] < 0:
					parent[w] = e
					touched = append(touched, w)
					queue = append(queue, w)
				}
			}
		}
		var cyc []*txnEdge
		for e := closing; ; {
			cyc = append(cyc, &g.edges[e])
			from := g.edges[e].from
			if from == root {
				break
			}
			e = parent[from]
		}
		slices.Reverse(cyc)
		out, sccSize = append(out, cyc), append(sccSize, sizes[c])
		for _, w := range touched {
			parent[w] = -1
		}
	}
	return out, sccSize
}

// txnCycles builds the graph's ww and wr edges and reports G0 and G1c.
func (a *run) txnCycles() {
	c := a.c
	vid := make([]int32, len(c.Txns)) // txn -> vertex, -1 none
	var vtx []int32                   // vertex -> txn
	for i := range c.Txns {
		vid[i] = -1
		if t := c.Txns[i].Typ; t == model.OpOK || t == model.OpInfo {
			vid[i] = int32(len(vtx))
			vtx = append(vtx, int32(i))
		}
	}
	ww, wr := a.wwEdges(vid), a.wrEdges(vid)
	a.wwN, a.wrN = len(ww), len(wr)
	a.out.G0 = a.cycleEntries(G0, vtx, newTxnGraph(len(vtx), ww))
	a.out.G1c = a.cycleEntries(G1c, vtx, newTxnGraph(len(vtx), wr))
}

// wwEdges links consecutive txn values of each partition, in offset order:
// an offset from the final read of the partition, else as acked.
func (a *run) wwEdges(vid []int32) []txnEdge {
	c := a.c
	type at struct {
		off int64
		ts  int32
	}
	pos := func(s int) int64 {
		if a.in.Finals.TsFin[s] >= 0 {
			return a.in.Finals.TsFin[s]
		}
		return c.TxnSends[s].Off
	}
	// Sized in a first pass: a million sends must not be copied as the
	// slices grow.
	n := make([]int, len(c.TPs))
	for s := range c.TxnSends {
		if ts := &c.TxnSends[s]; vid[ts.Txn] >= 0 && pos(s) >= 0 {
			n[ts.TP]++
		}
	}
	per := make([][]at, len(c.TPs))
	for tp := range per {
		per[tp] = make([]at, 0, n[tp])
	}
	for s := range c.TxnSends {
		if ts := &c.TxnSends[s]; vid[ts.Txn] >= 0 && pos(s) >= 0 {
			per[ts.TP] = append(per[ts.TP], at{pos(s), int32(s)})
		}
	}
	out := make([]txnEdge, 0, len(c.TxnSends))
	for tp, list := range per {
		slices.SortFunc(list, func(x, y at) int { return cmp.Or(cmp.Compare(x.off, y.off), cmp.Compare(x.ts, y.ts)) })
		for i := 1; i < len(list); i++ {
			p, q := &c.TxnSends[list[i-1].ts], &c.TxnSends[list[i].ts]
			if p.Txn != q.Txn {
				out = append(out, txnEdge{from: vid[p.Txn], to: vid[q.Txn], tp: int32(tp), v1: p.Val, v2: q.Val,
					o1: list[i-1].off, o2: list[i].off, epoch: -1})
			}
		}
	}
	return out
}

// wrEdges links each txn that sent a value to each other txn whose poll
// read it.
func (a *run) wrEdges(vid []int32) []txnEdge {
	c := a.c
	n := 0
	for i := range c.TxnPolls {
		n += int(c.TxnPolls[i].End - c.TxnPolls[i].Start)
	}
	out := make([]txnEdge, 0, n)
	for i := range c.TxnPolls {
		reader := vid[c.TxnPollOf[i]]
		if reader < 0 {
			continue
		}
		op := &c.TxnPolls[i]
		for j := op.Start; j < op.End; j++ {
			r := &c.Recs[j]
			_, ts := c.Writer(r.Val, r.TP, r.Off)
			if ts < 0 {
				continue
			}
			if w := vid[c.TxnSends[ts].Txn]; w >= 0 && w != reader {
				out = append(out, txnEdge{from: w, to: reader, tp: r.TP, v1: r.Val, v2: -1, o1: r.Off, o2: -1, epoch: r.Epoch})
			}
		}
	}
	return out
}

func (a *run) cycleEntries(kind string, vtx []int32, g *txnGraph) []CycleEntry {
	c := a.c
	cycles, sizes := g.cycles()
	var out []CycleEntry
	for k, cyc := range cycles {
		e := CycleEntry{SCCSize: int(sizes[k])}
		pos := map[int32]int{}
		for _, ed := range cyc {
			pos[ed.from] = len(e.Txns)
			e.Txns = append(e.Txns, a.txnRef(vtx[ed.from]))
		}
		for _, ed := range cyc {
			t := c.TPs[ed.tp]
			st := CycleStep{Type: "ww", From: pos[ed.from], To: pos[ed.to], Topic: t.Topic, Partition: t.Partition,
				Values: []string{c.Vals[ed.v1].Str}, Offsets: []int64{ed.o1}}
			if ed.v2 >= 0 {
				st.Values, st.Offsets = append(st.Values, c.Vals[ed.v2].Str), append(st.Offsets, ed.o2)
			} else {
				st.Type, st.LeaderEpochs = "wr", []int32{ed.epoch}
			}
			e.Steps = append(e.Steps, st)
		}
		root := &c.Txns[vtx[cyc[0].from]]
		at := max(root.Ret, root.Call)
		e.Where = a.in.Places.Where(cyc[0].tp, at)
		e.Text = cycleText(kind, &e)
		out = append(out, e)
	}
	return out
}
