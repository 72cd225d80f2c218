package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/linearize"
)

// linearity is the linearizability domain: porcupine's search for a
// linearization of each partition's log (package linearize, with the
// model in package logmodel), kchaos's extension of the contract. This
// file declares its anomaly and places its findings in the Result.
type linearity struct{ domainBase }

var linKinds = []declared{
	{anomaly.Kind{Name: Nonlinearizable, Unit: "per partition", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.Nonlinearizable) }},
}

func (linearity) analyze(a *analysis) {
	if a.c.opts.SkipLinearizability {
		a.r.Linearizable = &Linearizable{Result: "skipped"}
		return
	}
	o := a.c.opts
	f := linearize.Check(&a.c.History, a.acked, linearize.Config{Timeout: o.PorcupineTimeout, Window: o.Window,
		VisualizeDir: o.VisualizeDir, Prefix: o.prefix, Loose: !tighten})
	a.r.Linearizable = f.Linearizable
	a.r.Anomalies.Nonlinearizable = append(a.r.Anomalies.Nonlinearizable, f.Nonlinearizable...)
	a.r.Reasons = append(a.r.Reasons, f.Reasons...)
}

// tighten: open-ended appends are tightened (see package logmodel); a test
// turns it off to show that it changes no verdict.
var tighten = true

// The analyzer's result types, under the names results.json's readers
// know (package linearize owns them).
type (
	Linearizable         = linearize.Linearizable
	LinPartition         = linearize.LinPartition
	RealTimeViolation    = linearize.RealTimeViolation
	NonlinearizableEntry = linearize.NonlinearizableEntry
	Window               = linearize.Window
)

// VisualizationName is the file name of porcupine's HTML visualization of
// a topic-partition (package linearize writes it).
func VisualizationName(topic string, partition int32) string {
	return linearize.VisualizationName(topic, partition)
}

// notes says which partitions were left out of the model: they hold
// transactions, which the transactions domain judges.
func (linearity) notes(a *analysis) []string {
	if tps := linearize.LeftOut(&a.c.History); len(tps) > 0 && !a.c.opts.SkipLinearizability {
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
