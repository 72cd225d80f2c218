package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/metadata"
)

// metadataExplanations are the metadata anomalies of res in words, at
// most maxExplained of each kind: the change, who made it and when, what
// the ack promised and what the converged metadata holds; the node that
// disagrees and how; the controllers that led one epoch; the voter set
// change a later quorum sample contradicts; and how long metadata changes
// failed, after which fault.
func metadataExplanations(res *results) []explanation {
	if res == nil {
		return nil
	}
	a := &res.Anoms
	var out []explanation
	add := func(kind string, n int, text func(i int) string) { out = explainEach(out, kind, n, text) }
	add(metadata.Lost, len(a.MetadataLost), func(i int) string {
		e := a.MetadataLost[i]
		return fmt.Sprintf("%s %s by p%d (invoked at %.3f s, acknowledged at %.3f s): the ack promised %s; the converged metadata (node %d) has %s",
			e.F, e.Topic, e.Process, e.InvokedS, e.AckedS, e.Want, e.Node, e.Got)
	})
	add(metadata.Diverged, len(a.MetadataDiverged), func(i int) string {
		e := a.MetadataDiverged[i]
		s := fmt.Sprintf("node %d against node %d: %s", e.Node, e.Reference, strings.Join(e.Differences, "; "))
		if e.AtS > 0 {
			s += fmt.Sprintf(" (at %.3f s)", e.AtS)
		}
		return s
	})
	add(metadata.SplitBrain, len(a.SplitBrain), func(i int) string {
		e := a.SplitBrain[i]
		s := fmt.Sprintf("epoch %d at %.3f s: %s", e.Epoch, e.AtS, e.Why)
		if e.NewerEpoch != nil {
			s += fmt.Sprintf(" (epoch %d already seen)", *e.NewerEpoch)
		}
		return s
	})
	add(metadata.VoterChangeLost, len(a.VoterChangeLost), func(i int) string {
		// Why names the voter, its directory id, the epoch at the ack and
		// the samples (the first that contradicts it, the final one), and
		// says when it does not count.
		return a.VoterChangeLost[i].Why
	})
	add(metadata.Unavailable, len(a.MetadataUnavailable), func(i int) string {
		e := a.MetadataUnavailable[i]
		to := fmt.Sprintf("%.3f s (the next acknowledged change)", e.ToS)
		if !e.Ended {
			to = fmt.Sprintf("%.3f s (the end of the history; no change succeeded again)", e.ToS)
		}
		s := fmt.Sprintf("metadata changes failed or ended unknown from %.3f s to %s, %.3f s, %d ops", e.FromS, to, e.ToS-e.FromS, e.Ops)
		if len(e.Errors) > 0 {
			var es []string
			for _, k := range slices.Sorted(maps.Keys(e.Errors)) {
				es = append(es, fmt.Sprintf("%s ×%d", k, e.Errors[k]))
			}
			s += " (" + strings.Join(es, ", ") + ")"
		}
		if e.Fault != "" {
			s += "; after " + e.Fault
		}
		return s
	})
	return out
}
