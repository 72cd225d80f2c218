package metadata

import (
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
)

// Analyzer is the KRaft metadata domain (domain.Analyzer): it judges what
// package checker gave a Collector while the history streamed
// (domain.Input.Decoded).
var Analyzer = domain.New("metadata", analyze)

// Found is what the analyzer found beyond its entries.
type Found struct {
	domain.Base
	// Terms are the quorum's leaders (Analysis.Terms).
	Terms []Term
	x     *MetadataAnomalies
	// unknowns, unexercised and notes are Analysis.Unknowns,
	// Analysis.Unexercised and Analysis.Notes.
	unknowns, unexercised, notes []string
}

// analyze judges the Collector in in.Decoded (nil: an empty one) and puts
// the anomalies in out.
func analyze(in *domain.Input, out *MetadataAnomalies) *Found {
	c, _ := in.Decoded.(*Collector)
	if c == nil {
		c = New(Options{})
	}
	r := c.result()
	*out = r.MetadataAnomalies
	return &Found{Terms: r.Terms, x: out, unknowns: r.Unknowns, unexercised: r.Unexercised, notes: r.Notes}
}

// Unknowns: acknowledged changes nothing after them could judge (no
// broker's metadata read, no quorum sample listing the voters).
func (f *Found) Unknowns() []string { return f.unknowns }

// Unexercised: metadata changes none of which was acknowledged.
func (f *Found) Unexercised() []string { return f.unexercised }

// Notes: removed voters back by auto-join, and refusals taken as
// changes made (refusedAsDone).
func (f *Found) Notes() []string { return f.notes }

// Uncounted: a removed voter voting again while it may have run with
// auto-join on leaves the verdict unknown.
func (f *Found) Uncounted(k anomaly.Kind, n int) string {
	if k.Name != VoterChangeLost {
		return ""
	}
	if rest := n - f.x.CountedVoters(); rest > 0 {
		first := ""
		for _, e := range f.x.VoterChangeLost {
			if !e.Counted {
				first = e.Why
				break
			}
		}
		return fmt.Sprintf("%s: %d acknowledged removals whose voter voted again with no add-controller, while it may have been running with auto-join on (first: %s)", k.Name, rest, first)
	}
	return ""
}

// Invalid names the first entry of a kind, so that the verdict's reason
// says what was lost or who led twice, not only how many.
func (f *Found) Invalid(k anomaly.Kind, n int) string {
	x := f.x
	first := ""
	switch {
	case k.Name == Lost && len(x.MetadataLost) > 0:
		e := x.MetadataLost[0]
		first = fmt.Sprintf("%s %s acked at %.1f s: want %s, node %d has %s", e.F, e.Topic, e.AckedS, e.Want, e.Node, e.Got)
	case k.Name == Diverged && len(x.MetadataDiverged) > 0:
		e := x.MetadataDiverged[0]
		first = fmt.Sprintf("node %d: %s", e.Node, strings.Join(e.Differences, "; "))
	case k.Name == SplitBrain && len(x.SplitBrain) > 0:
		first = x.SplitBrain[0].Why
	case k.Name == VoterChangeLost:
		// Only the counted entries make the verdict false (Uncounted
		// says the rest).
		if n = x.CountedVoters(); n == 0 {
			return ""
		}
		for _, e := range x.VoterChangeLost {
			if e.Counted {
				first = e.Why
				break
			}
		}
	}
	if first == "" {
		return fmt.Sprintf("%s: %d", k.Name, n)
	}
	return fmt.Sprintf("%s: %d (first: %s)", k.Name, n, first)
}
