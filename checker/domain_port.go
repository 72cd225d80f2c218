package checker

import (
	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
)

// glue is what a domain's port call says beyond its analyzer and slot;
// every hook may be nil (nothing).
type glue[F domain.Findings] struct {
	// place puts what the domain found beyond its entries in the Result:
	// another domain's lists (the transactions' unseen sends), or a part
	// of the Result of its own (linearizable, quorum_terms).
	place func(r *Result, f F)
	// stats is what it adds to the stats.
	stats func(st *Stats, f F)
	// decoded is what the Checker decoded for the domain alone while the
	// history streamed (domain.Input.Decoded).
	decoded func(c *Checker) any
}

// ported is a domain in a package of its own (domain.Analyzer) in the
// registry: slot is its part of the Result's anomalies (the struct
// Anomalies embeds). Registering such a domain is one port call
// (domain_groups.go).
type ported[E domain.Entries, F domain.Findings] struct {
	an   domain.Analyzer[E, F]
	slot func(x *Anomalies) E
	glue[F]
}

// port makes an analyzer of its own package a domain of the registry.
func port[E domain.Entries, F domain.Findings](an domain.Analyzer[E, F], slot func(x *Anomalies) E, g glue[F]) analyzer {
	return ported[E, F]{an, slot, g}
}

func (p ported[E, F]) Name() string              { return p.an.Name() }
func (p ported[E, F]) Anomalies() []anomaly.Kind { return p.an.Anomalies() }

func (p ported[E, F]) count(x *Anomalies, name string) int { return p.slot(x).Count(name) }

func (p ported[E, F]) analyze(a *analysis) {
	in := a.input()
	if p.decoded != nil {
		own := *in
		own.Decoded = p.decoded(a.c)
		in = &own
	}
	f := p.an.Analyze(in, p.slot(&a.r.Anomalies))
	a.found[p.Name()] = f
	if p.place != nil {
		p.place(a.r, f)
	}
	if p.stats != nil {
		a.statsOf = append(a.statsOf, func(st *Stats) { p.stats(st, f) })
	}
}

func (p ported[E, F]) explain(a *analysis) {
	if f := a.found[p.Name()]; f != nil {
		a.r.Explanations = append(a.r.Explanations, f.Explanations()...)
	}
}

func (p ported[E, F]) invalid(a *analysis, k anomaly.Kind, n int) string {
	if f := a.found[p.Name()]; f != nil {
		return f.Invalid(k, n)
	}
	return domain.Invalid(k, n)
}

func (p ported[E, F]) uncounted(a *analysis, k anomaly.Kind, n int) string {
	if f := a.found[p.Name()]; f != nil {
		return f.Uncounted(k, n)
	}
	return ""
}

func (p ported[E, F]) notes(a *analysis) []string {
	if f := a.found[p.Name()]; f != nil {
		return f.Notes()
	}
	return nil
}

func (p ported[E, F]) unknowns(a *analysis) []string {
	if f := a.found[p.Name()]; f != nil {
		return f.Unknowns()
	}
	return nil
}

// input is what every analyzer of its own package reads (domain.Input).
func (a *analysis) input() *domain.Input {
	if a.in == nil {
		o := a.c.opts
		a.in = &domain.Input{History: &a.c.History, Places: a.places, Finals: a.fin, Acked: a.acked,
			Options: anomaly.Options{Idempotent: o.Idempotent, ExactlyOnce: o.ExactlyOnce}, TxnTimeout: o.TxnTimeout,
			TopicConfigs: o.TopicConfigs, Facts: a,
			Porcupine: domain.Porcupine{Skip: o.SkipLinearizability, Timeout: o.PorcupineTimeout, Window: o.Window,
				VisualizeDir: o.VisualizeDir, Prefix: o.prefix, Loose: !tighten}}
	}
	return a.in
}

// Reused is the log domain's reused offsets of tp (domain.Facts).
func (a *analysis) Reused(tp int32) []int64 {
	t := a.c.TPs[tp]
	var out []int64
	for _, r := range a.r.Anomalies.OffsetReuse {
		if r.Topic == t.Topic && r.Partition == t.Partition {
			out = append(out, r.Offset)
		}
	}
	return out
}
