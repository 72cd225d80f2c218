package txncheck

import (
	"math/rand/v2"
	"testing"
)

// TestTxnGraphRandom: on random graphs, every cycle found is a cycle, and
// one is found exactly when the graph is not acyclic (Kahn's sort).
func TestTxnGraphRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + rng.IntN(30)
		var es []txnEdge
		for range rng.IntN(3 * n) {
			f, to := int32(rng.IntN(n)), int32(rng.IntN(n))
			if f != to {
				es = append(es, txnEdge{from: f, to: to})
			}
		}
		g := newTxnGraph(n, es)
		cycles, _ := g.cycles()
		for _, c := range cycles {
			for i, e := range c {
				if next := c[(i+1)%len(c)]; e.to != next.from {
					t.Fatalf("not a cycle: %+v", c)
				}
			}
		}
		indeg := make([]int, n)
		for _, e := range es {
			indeg[e.to]++
		}
		var queue []int32
		for v := range n {
			if indeg[v] == 0 {
				queue = append(queue, int32(v))
			}
		}
		seen := 0
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			seen++
			for e := g.head[v]; e < g.head[v+1]; e++ {
				if indeg[g.edges[e].to]--; indeg[g.edges[e].to] == 0 {
					queue = append(queue, g.edges[e].to)
				}
			}
		}
		if acyclic := seen == n; acyclic != (len(cycles) == 0) {
			t.Fatalf("acyclic %v but %d cycles: %+v", acyclic, len(cycles), es)
		}
	}
}

// TestTxnGraphDeep: a cycle through a million txns needs no deep stack.
func TestTxnGraphDeep(t *testing.T) {
	const n = 1_000_000
	es := make([]txnEdge, n)
	for i := range es {
		es[i] = txnEdge{from: int32(i), to: int32((i + 1) % n)}
	}
	cycles, sizes := newTxnGraph(n, es).cycles()
	if len(cycles) != 1 || len(cycles[0]) != n || sizes[0] != n {
		t.Fatalf("%d cycles", len(cycles))
	}
}
