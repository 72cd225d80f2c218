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
	// Terms are the quorum's leaders (Result.Terms).
	Terms []Term
	x     *MetadataAnomalies
}

// analyze judges the Collector in in.Decoded (nil: an empty one) and puts
// the anomalies in out.
func analyze(in *domain.Input, out *MetadataAnomalies) *Found {
	c, _ := in.Decoded.(*Collector)
	if c == nil {
		c = New(Options{})
	}
	r := c.Result()
	*out = r.MetadataAnomalies
	return &Found{Terms: r.Terms, x: out}
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
	}
	if first == "" {
		return fmt.Sprintf("%s: %d", k.Name, n)
	}
	return fmt.Sprintf("%s: %d (first: %s)", k.Name, n, first)
}
