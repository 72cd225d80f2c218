package checker

import (
	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
)

// The checker is composed of domains, as Jepsen composes checkers: each
// declares its anomalies (anomaly.Kind: name, unit, the rule by which they
// count against validity) and finds them in the decoded history on its
// own. Result runs every domain's analyzer, then gathers their
// explanations, in the registry's order; the verdict (verdict.go) reads
// the declarations and the findings' reasons, never a list of names.
//
// Every domain is in a package of its own and implements package
// domain's Analyzer; its glue file (domain_log.go, domain_retention.go,
// domain_lin.go, domain_txn.go, domain_groups.go, domain_share.go,
// domain_metadata.go) registers it with one port call (see "Adding a
// domain" in doc.go). The order matters where a domain reads another's
// findings: the log domain first (the transactions domain explains the
// txn-duplicate entries the log domain's pass makes; consumer groups read
// its reused offsets through domain.Facts.Reused).
var analyzers = []registered{
	logOrder,
	retentionDomain,
	linearity,
	transactions,
	consumerGroups,
	shareGroups,
	metadataDomain,
}

// registered is a domain in the registry: its declarations, its part of
// the Result's anomalies, and its run, which returns its findings.
type registered struct {
	anomaly.Domain
	entries func(x *Anomalies) any
	analyze func(a *analysis) domain.Findings
	// start, for a domain that runs beside the others (glue.background),
	// begins its analysis on a goroutine of its own and returns what
	// waits for it and places its findings.
	start func(a *analysis) (finish func() domain.Findings)
}

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
	decoded func(c *checker) any
	// background runs the analyzer beside the domains before it in the
	// registry (Result starts it first): only for a domain that reads
	// nothing the others find, and whose own entries no domain before it
	// reads. Its findings are placed in the registry's order all the same.
	background bool
}

// port makes an analyzer of its own package a domain of the registry:
// slot is its part of the Result's anomalies (the struct Anomalies
// embeds).
func port[E any, F domain.Findings](an domain.Analyzer[E, F], slot func(x *Anomalies) E, g glue[F]) registered {
	input := func(a *analysis) *domain.Input {
		in := a.input()
		if g.decoded != nil {
			own := *in
			own.Decoded = g.decoded(a.c)
			in = &own
		}
		return in
	}
	place := func(a *analysis, f F) domain.Findings {
		if g.place != nil {
			g.place(a.r, f)
		}
		if g.stats != nil {
			a.statsOf = append(a.statsOf, func(st *Stats) { g.stats(st, f) })
		}
		return f
	}
	r := registered{Domain: an,
		entries: func(x *Anomalies) any { return slot(x) },
		analyze: func(a *analysis) domain.Findings {
			return place(a, an.Analyze(input(a), slot(&a.r.Anomalies)))
		}}
	if g.background {
		r.start = func(a *analysis) func() domain.Findings {
			in, out := input(a), slot(&a.r.Anomalies)
			done := make(chan F, 1)
			go func() { done <- an.Analyze(in, out) }()
			return func() domain.Findings { return place(a, <-done) }
		}
	}
	return r
}

// kinds is every declared anomaly, in the registry's order.
func kinds() []anomaly.Kind {
	ds := make([]anomaly.Domain, len(analyzers))
	for i, d := range analyzers {
		ds[i] = d
	}
	return anomaly.Kinds(ds...)
}

// AnomalyNames is every anomaly name, in HISTORY.md's order (the domains'
// declarations in the registry's order): the vocabulary that
// expectations and suites count by.
var AnomalyNames = func() []string {
	var out []string
	for _, k := range kinds() {
		out = append(out, k.Name)
	}
	return out
}()

// CountsAgainst lists the anomaly names that make a verdict false, in
// HISTORY.md's order: read from the domains' declarations (the report and
// the CLI read it from the Result, never restate it). duplicate and
// nonmonotonic-send count only for an idempotent producer; unseen never
// makes a verdict false (it makes it unknown). The transaction anomalies
// count whatever the plain producer's settings (a transactional producer
// is idempotent and promises each of them), except G0: Kafka does not
// isolate the writes of concurrent transactions, so their interleaving on
// partitions is information, not a violation (Jepsen's kafka workload
// allows it too). A consumer group's lost-by-commit and commit-backwards
// always count (an acknowledged commit is a promise); a redelivery and a
// delivery-outside-assignment count only when the scenario declares
// exactly-once delivery: at-least-once allows a record to be processed
// twice, and a zombie's reads (a member reading a partition its client no
// longer, or never, held) are at worst that, while its commits are judged
// on their own (commit-backwards, lost-by-commit); exactly-once promises
// one owner per record.
func CountsAgainst(idempotent, exactlyOnce bool) []string {
	return anomaly.Against(kinds(), anomaly.Options{Idempotent: idempotent, ExactlyOnce: exactlyOnce})
}

// counts is the number of entries of each kind found, absent when none.
func (x *Anomalies) counts() map[string]int {
	m := map[string]int{}
	for _, d := range analyzers {
		for _, k := range d.Anomalies() {
			if n := domain.Count(d.entries(x), k.Name); n > 0 {
				m[k.Name] = n
			}
		}
	}
	return m
}
