package checker

import (
	"fmt"
	"slices"
	"strings"
)

// maxExplained bounds the explanations a summary prints.
const maxExplained = 20

// Summary renders a result for a person: the verdict, the counts, the
// reasons, the explained ranges and the linearizability verdict.
func (r *Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", strings.ToUpper(r.Valid.String()))
	if len(r.Counts) > 0 {
		names := sortedKeys(r.Counts)
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %d", n, r.Counts[n]))
		}
		fmt.Fprintf(&b, "anomalies: %s\n", strings.Join(parts, ", "))
	}
	for _, reason := range r.Reasons {
		fmt.Fprintf(&b, "  - %s\n", reason)
	}
	for i, e := range r.Explanations {
		if i == maxExplained {
			fmt.Fprintf(&b, "  ... and %d more explanations in results.json\n", len(r.Explanations)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", e.Text)
	}
	if l := r.Linearizable; l != nil {
		line := "linearizability: " + l.Result
		var bad []string
		for name, p := range l.Partitions {
			if p.Result != "ok" {
				bad = append(bad, fmt.Sprintf("%s %s", name, p.Result))
			}
		}
		slices.Sort(bad)
		if len(bad) > 0 {
			line += " (" + strings.Join(bad, ", ") + ")"
		}
		fmt.Fprintln(&b, line)
	}
	s := r.Stats.Sends
	fmt.Fprintf(&b, "sends: %d ok, %d fail, %d info", s.OK, s.Fail, s.Info)
	if s.OKWithoutOffset > 0 {
		fmt.Fprintf(&b, ", %d ok without offset", s.OKWithoutOffset)
	}
	if t := r.Stats.Txns; t != nil {
		fmt.Fprintf(&b, "; txns: %d ok, %d fail, %d info", t.OK, t.Fail, t.Info)
	}
	fmt.Fprintf(&b, "; %d events over %.1f s\n", r.Stats.Events, r.Stats.DurationS)
	var down []string
	for name, p := range r.Stats.Partitions {
		if p.UnavailableS > 0 {
			down = append(down, fmt.Sprintf("%s %.1f s", name, p.UnavailableS))
		}
	}
	slices.Sort(down)
	if len(down) > 0 {
		fmt.Fprintf(&b, "unavailable: %s\n", strings.Join(down, ", "))
	}
	return b.String()
}
