package checker

import (
	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// result judges the history added so far. Call it once, after the last Add.
func (c *checker) result() *Result {
	c.closeOpen()
	r := &Result{Idempotent: c.opts.Idempotent}
	a := &analysis{c: c, r: r, found: make([]domain.Findings, len(analyzers))}
	a.prepare() // the shared judgements (finals.go)
	// A domain that runs in the background (the linearizability search:
	// porcupine, most of judging a long history, spread over the cores)
	// starts first, so that the others, one core's work in turn, overlap
	// it instead of leaving a core idle before and after it.
	finish := make([]func() domain.Findings, len(analyzers))
	for i, d := range analyzers {
		if d.start != nil {
			finish[i] = d.start(a)
		}
	}
	for i, d := range analyzers {
		if finish[i] != nil {
			a.found[i] = finish[i]()
		} else {
			a.found[i] = d.analyze(a)
		}
	}
	for _, f := range a.found {
		r.Explanations = append(r.Explanations, f.Explanations()...)
	}
	r.Stats = a.stats()
	r.Counts = r.Anomalies.counts()
	a.verdict()
	return r
}

// closeOpen ends the ops still open when the history ends as Jepsen does:
// their outcome is unknown (info). A final read still open did not complete.
func (c *checker) closeOpen() {
	procs := sortedKeys(c.open)
	for _, p := range procs {
		pd := c.open[p]
		switch pd.f {
		case histories.FSend:
			c.Sends[pd.send].Typ = model.OpInfo
			c.Sends[pd.send].Ret = -1
		case histories.FFinalRead:
			c.failed = append(c.failed, finalTry{proc: p, typ: "open", at: pd.call, tps: pd.tps})
		case histories.FTxn:
			c.Txns[pd.txn].Typ = model.OpInfo
		case histories.FCommit:
			c.Commits[pd.gp.commit].Typ = model.OpInfo
		}
	}
	c.open = map[int]*pending{}
}

// analysis holds what the checks share while the Result is built.
type analysis struct {
	c      *checker
	r      *Result
	fin    *judge.Finals // the final-read judgement (finals.go)
	places *judge.Places // where a partition stood, the faults around a time
	acked  [][]int32     // per partition, its sends acked with an offset, in send order
	// The domains' input (domain_input.go), their findings in the
	// registry's order, and what they add to the stats.
	in      *domain.Input
	found   []domain.Findings
	statsOf []func(st *Stats)
}

func (a *analysis) prepare() {
	c := a.c
	a.prepareFinals()
	a.places = judge.NewPlaces(&c.History)
	a.acked = judge.Acked(&c.History)
}

// finalRecs returns the records of tp in its last completed final read,
// by offset.
func (a *analysis) finalRecs(tp int32) []rec { return judge.FinalRecs(&a.c.History, tp) }

// secs is judge.Secs, for brevity.
func secs(t int64) float64 { return judge.Secs(t) }

// faultRef names nemesis op i (judge.Places).
func (a *analysis) faultRef(i int) faultRef { return a.places.FaultRef(i) }
