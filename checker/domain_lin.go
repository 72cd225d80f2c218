package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
)

// linearity is the linearizability domain: porcupine's search for a
// linearization of each partition's log (linearizability.go, linops.go,
// package logmodel), kchaos's extension of the contract.
type linearity struct{ domainBase }

var linKinds = []declared{
	{anomaly.Kind{Name: Nonlinearizable, Unit: "per partition", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.Nonlinearizable) }},
}

func (linearity) analyze(a *analysis) {
	if a.c.opts.SkipLinearizability {
		a.r.Linearizable = &Linearizable{Result: "skipped"}
	} else {
		a.r.Linearizable = a.linearizability()
	}
}

// notes says which partitions were left out of the model: they hold
// transactions, which the transactions domain judges.
func (linearity) notes(a *analysis) []string {
	if tps := a.txnNotLinearized(); len(tps) > 0 && !a.c.opts.SkipLinearizability {
		return []string{fmt.Sprintf("linearizability: %d partitions hold txn writes or read_committed reads "+
			"and are left out of the log model, which does not model transactions (the txn checks judge them): %s",
			len(tps), strings.Join(tps, ", "))}
	}
	return nil
}

// unknowns: a search that ran out of time proves nothing.
func (linearity) unknowns(a *analysis) []string {
	l := a.r.Linearizable
	if l == nil || l.Result != "unknown" {
		return nil
	}
	var names []string
	for name, p := range l.Partitions {
		if p.Result == "unknown" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return []string{fmt.Sprintf("linearizability check ran out of time on %v", names)}
}
