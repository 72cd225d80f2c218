package explore

import (
	"slices"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/harness/scenario"
)

// outcomePrefix starts the class of a broken outcome check: "outcome
// lost-write == 0 when unclean=false".
const outcomePrefix = "outcome "

// invalidClass is the class of an invalid verdict that counted no anomaly
// by name (every invalid verdict today names one; kept so that a finding
// is never classless).
const invalidClass = "invalid"

// classes are the anomaly classes a run showed, in the checker's order:
// each anomaly it counted against validity (lost-write, offset-reuse,
// txn-*, share-*, ...: res.Against; an anomaly the checker reports but
// does not count, such as a duplicate from a producer that was not
// idempotent under a duplicated Produce request, is the fault doing what
// it does, not a finding), then each of the scenario's invariant outcome checks that did not hold
// (harness/expect judges them, as a suite does). A run is a finding when
// it has any: its verdict is invalid, or it broke an invariant.
//
// Only invariants count (expect.Check.Invariant: "lost-write == 0",
// "offline_seconds <= 60"), as a Jepsen user expects: a finding is
// something that must not happen and did. A check that expects the
// story's own faults to do something ("lost-write > 0 when unclean=true")
// describes a story whose scripted steps explore drops; a run under
// other faults that does not retell it has found nothing.
func classes(res *checker.Result, m expect.Metrics, s *scenario.Scenario) []string {
	var out []string
	for _, a := range expect.Anomalies {
		if m[a] > 0 && countsAgainst(res, a) {
			out = append(out, a)
		}
	}
	if res.Valid == checker.Invalid && len(out) == 0 {
		out = append(out, invalidClass)
	}
	if s != nil {
		var invariants []expect.Check
		for _, c := range s.Checks() {
			if c.Invariant() {
				invariants = append(invariants, c)
			}
		}
		_, results := expect.Judge(invariants, s.Settings(), m)
		for _, r := range results {
			if r.Measured && !r.Held {
				out = append(out, outcomePrefix+r.Text)
			}
		}
	}
	return out
}

// countsAgainst reports whether res counted anomaly a against validity;
// a result written before results.json named them (no
// counted_against_validity) counts every anomaly, as kchaos did then.
func countsAgainst(res *checker.Result, a string) bool {
	return res.Against == nil || slices.Contains(res.Against, a)
}

// primary is the class a shrink keeps: the first anomaly the checker
// names (its order puts lost writes first), else the first broken check.
func primary(classes []string) string {
	if len(classes) == 0 {
		return ""
	}
	return classes[0]
}

// shows reports whether classes include class.
func shows(classes []string, class string) bool { return slices.Contains(classes, class) }
