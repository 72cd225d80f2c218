package linearize

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
)

// Nonlinearizable is the anomaly's name: kchaos's extension of the
// contract (porcupine found no linearization of a partition's log).
const Nonlinearizable = "nonlinearizable"

// Analyzer is the linearizability domain (domain.Analyzer).
var Analyzer = domain.New("linearizability", analyze)

// LinAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type LinAnomalies struct {
	Nonlinearizable []NonlinearizableEntry `json:"nonlinearizable,omitempty" unit:"per partition" rule:"always"`
}

// Analysis is what the analyzer found beyond its entries: the search's
// result (results.json's "linearizable") and its notes.
type Analysis struct {
	domain.Base
	Linearizable *Linearizable
	// Reasons are notes for the Result's reasons, after the verdict's
	// (a visualization that could not be written).
	Reasons []string
	notes   []string
}

// analyze searches each partition's log (Check) unless in.Porcupine says
// to skip it, and appends the partitions that have no linearization to out.
func analyze(in *domain.Input, out *LinAnomalies) *Analysis {
	if in.Porcupine.Skip {
		return &Analysis{Linearizable: &Linearizable{Result: "skipped"}}
	}
	f := check(in.History, in.Acked, in.Porcupine)
	out.Nonlinearizable = append(out.Nonlinearizable, f.Nonlinearizable...)
	a := &Analysis{Linearizable: f.Linearizable, Reasons: f.Reasons}
	if tps := LeftOut(in.History); len(tps) > 0 {
		a.notes = []string{fmt.Sprintf("linearizability: %d partitions hold txn writes or read_committed reads "+
			"and are left out of the log model, which does not model transactions (the txn checks judge them): %s",
			len(tps), strings.Join(tps, ", "))}
	}
	return a
}

// Notes says which partitions were left out of the model: they hold
// transactions, which the transactions domain judges.
func (a *Analysis) Notes() []string { return a.notes }

// Unknowns: a search that ran out of time proves nothing.
func (a *Analysis) Unknowns() []string {
	l := a.Linearizable
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

// Invalid names the first partition without a linearization: its offsets
// and, if the appends went against real time, the first pair that did, so
// that the summary a run prints says what the verdict rests on.
func (a *Analysis) Invalid(k anomaly.Kind, n int) string {
	l := a.Linearizable
	if l == nil {
		return domain.Invalid(k, n)
	}
	for _, name := range slices.Sorted(maps.Keys(l.Partitions)) {
		if p := l.Partitions[name]; p.Result == "illegal" {
			return fmt.Sprintf("%s (first: %s: %s)", domain.Invalid(k, n), name, p.Why())
		}
	}
	return domain.Invalid(k, n)
}

// Why says why a partition has no linearization: the offsets of its
// illegal windows and the first real-time violation of its appends, if
// any ("offsets 2048-8191 have no linearization (3 of 12 windows);
// orders-0 offset 3392: p5's send of ... yet took the lower offset").
// "" for a partition that is not illegal.
func (p *LinPartition) Why() string {
	if p == nil || p.Result != "illegal" {
		return ""
	}
	var spans []string
	for i := 0; i < len(p.Illegal); {
		j := i + 1
		for j < len(p.Illegal) && p.Illegal[j].FirstOffset == p.Illegal[j-1].LastOffset+1 {
			j++
		}
		spans = append(spans, fmt.Sprintf("%d-%d", p.Illegal[i].FirstOffset, p.Illegal[j-1].LastOffset))
		i = j
	}
	s := "no linearization"
	switch {
	case len(spans) > 0 && p.Windows > 1:
		s = fmt.Sprintf("offsets %s have no linearization (%d of %d windows)", strings.Join(spans, ", "), len(p.Illegal), p.Windows)
	case len(spans) > 0:
		s = fmt.Sprintf("offsets %s have no linearization", strings.Join(spans, ", "))
	}
	if rt := p.RealTime; rt != nil && rt.Text != "" {
		s += "; " + rt.Text
	}
	return s
}
