package checker

import (
	"github.com/kchaos/kchaos/checker/domain"

	"github.com/kchaos/kchaos/checker/anomaly"
)

// The checker is composed of domains, as Jepsen composes checkers: each
// declares its anomalies (anomaly.Kind: name, unit, the rule by which they
// count against validity) and finds them in the decoded history on its
// own. Result runs every domain's analyze, then every domain's explain,
// in the registry's order; the verdict (verdict.go) reads the
// declarations, never a list of names.
//
// Every domain is in a package of its own: log and order (logorder),
// transactions (txncheck) and consumer groups (groupcheck) implement
// package domain's Analyzer and are registered by one port call in their
// glue file (domain_log.go, domain_txn.go, domain_groups.go; see "Adding
// a domain" in doc.go); linearizability (package linearize) still has its
// glue on the unexported analyzer below (domain_lin.go). The order
// matters where a domain reads another's findings: the log domain first
// (the transactions domain explains the txn-duplicate entries the log
// domain's pass makes; consumer groups read its reused offsets through
// domain.Facts.Reused).
var analyzers = []analyzer{
	logOrder,
	retentionDomain,
	linearity,
	transactions,
	consumerGroups,
	shareGroups,
	metadataDomain,
}

// analyzer is one domain of the checker.
type analyzer interface {
	anomaly.Domain
	// count is the number of entries of kind name in x.
	count(x *Anomalies, name string) int
	// analyze finds the domain's anomalies. Domains read the history and
	// the shared judgements (finals.go); they write only their own
	// entries and analysis fields, so their order does not change them.
	analyze(a *analysis)
	// explain groups what analyze found into r.Explanations.
	explain(a *analysis)
	// invalid is the reason for n entries of a kind that counts ("": none
	// of them does, as for a PerEntry kind whose entries all wait).
	invalid(a *analysis, k anomaly.Kind, n int) string
	// uncounted is the reason for those of n entries of kind k that do
	// not count: a note (IfIdempotent, IfExactlyOnce, Never) or a cause of
	// "unknown" (PerEntry, Unjudged); "" for none.
	uncounted(a *analysis, k anomaly.Kind, n int) string
	// notes and unknowns are the domain's reasons beyond its kinds.
	notes(a *analysis) []string
	unknowns(a *analysis) []string
}

// declared is an anomaly kind with where its entries are in Anomalies.
type declared struct {
	anomaly.Kind
	entries func(x *Anomalies) int
}

// domainBase gives a domain its declarations' plumbing and the hooks'
// defaults: no explanations, the generic reasons, no extra reasons.
type domainBase struct {
	name  string
	kinds []declared
}

func (d domainBase) Name() string { return d.name }

func (d domainBase) Anomalies() []anomaly.Kind {
	out := make([]anomaly.Kind, len(d.kinds))
	for i, k := range d.kinds {
		out[i] = k.Kind
	}
	return out
}

func (d domainBase) count(x *Anomalies, name string) int {
	for _, k := range d.kinds {
		if k.Name == name {
			return k.entries(x)
		}
	}
	return 0
}

func (domainBase) explain(*analysis) {}

func (domainBase) invalid(_ *analysis, k anomaly.Kind, n int) string { return domain.Invalid(k, n) }

func (domainBase) uncounted(*analysis, anomaly.Kind, int) string { return "" }
func (domainBase) notes(*analysis) []string                      { return nil }
func (domainBase) unknowns(*analysis) []string                   { return nil }

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
			if n := d.count(x, k.Name); n > 0 {
				m[k.Name] = n
			}
		}
	}
	return m
}
