// Package anomaly is the vocabulary in which the checker's domains declare
// what they find: each anomaly kind's name, its unit, and the rule by which
// it counts against validity. The verdict reads these declarations; no list
// elsewhere restates which anomalies make a verdict false, so a new domain
// (share groups, metadata) brings its own rules with its own anomalies.
//
// It imports nothing: a domain, the checker's verdict and a reader of
// results.json can all use it.
package anomaly

import "fmt"

// Rule says when an anomaly kind counts against validity.
type Rule uint8

const (
	// Always: any entry makes the verdict false.
	Always Rule = iota + 1
	// IfIdempotent: only when the producer was idempotent; Kafka promises
	// no more without it (duplicate, nonmonotonic-send).
	IfIdempotent
	// IfExactlyOnce: only when the consumer group declares exactly-once
	// delivery; at-least-once allows it (redelivery,
	// delivery-outside-assignment).
	IfExactlyOnce
	// PerEntry: only the entries the domain marks counted make the verdict
	// false; the others make it unknown (txn-hanging: a transaction not
	// yet open longer than its timeout may still be aborted).
	PerEntry
	// Never: information, reported and never against validity (G0).
	Never
	// Unjudged: never false; any entry makes the verdict unknown (unseen:
	// no read could judge the send).
	Unjudged
)

func (r Rule) String() string {
	switch r {
	case Always:
		return "always"
	case IfIdempotent:
		return "if idempotent"
	case IfExactlyOnce:
		return "if exactly-once"
	case PerEntry:
		return "per entry"
	case Never:
		return "never"
	case Unjudged:
		return "unknown"
	}
	return fmt.Sprintf("Rule(%d)", uint8(r))
}

// ParseRule is the Rule whose String is s.
func ParseRule(s string) (Rule, error) {
	for r := Always; r <= Unjudged; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown rule %q", s)
}

// Options are the run's settings a rule depends on.
type Options struct {
	Idempotent  bool // the producer was idempotent
	ExactlyOnce bool // the consumer group declares exactly-once delivery
}

// Kind declares one anomaly.
type Kind struct {
	Name string // as docs/HISTORY.md names it
	Unit string // what one entry counts: "per send", "per offset", ...
	Rule Rule
}

// Counts reports whether k counts against validity under o (for a PerEntry
// kind: whether its counted entries do; they always do).
func (k Kind) Counts(o Options) bool {
	switch k.Rule {
	case Always, PerEntry:
		return true
	case IfIdempotent:
		return o.Idempotent
	case IfExactlyOnce:
		return o.ExactlyOnce
	}
	return false
}

// Domain is one part of the checker: a family of anomalies it declares
// and finds on its own (Jepsen's composed checkers, one per property).
type Domain interface {
	// Name is the domain's name, for documentation and tests.
	Name() string
	// Anomalies declares what the domain finds, in HISTORY.md's order.
	Anomalies() []Kind
}

// Kinds lists the anomalies of domains, in order.
func Kinds(domains ...Domain) []Kind {
	var out []Kind
	for _, d := range domains {
		out = append(out, d.Anomalies()...)
	}
	return out
}

// Against lists, in order, the names of the kinds that count against
// validity under o.
func Against(kinds []Kind, o Options) []string {
	var out []string
	for _, k := range kinds {
		if k.Counts(o) {
			out = append(out, k.Name)
		}
	}
	return out
}

// Check reports a declaration that cannot be right: an empty name or
// unit, an unknown rule, or a name declared twice.
func Check(kinds []Kind) error {
	seen := map[string]bool{}
	for _, k := range kinds {
		switch {
		case k.Name == "":
			return fmt.Errorf("an anomaly without a name (unit %q)", k.Unit)
		case seen[k.Name]:
			return fmt.Errorf("anomaly %q declared twice", k.Name)
		case k.Unit == "":
			return fmt.Errorf("anomaly %q: no unit", k.Name)
		case k.Rule < Always || k.Rule > Unjudged:
			return fmt.Errorf("anomaly %q: unknown rule %v", k.Name, k.Rule)
		}
		seen[k.Name] = true
	}
	return nil
}
