package checker

import (
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/metadata"
	"github.com/kchaos/kchaos/histories"
)

// metadataDomain is the KRaft metadata domain: package metadata judges
// the admin client's metadata changes, the nodes' final metadata reads and
// the quorum samples; this file only wires it in.
type metadataDomain struct{ domainBase }

var metadataKinds = []declared{
	{anomaly.Kind{Name: metadata.Lost, Unit: "per change", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.MetadataLost) }},
	{anomaly.Kind{Name: metadata.Diverged, Unit: "per node", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.MetadataDiverged) }},
	{anomaly.Kind{Name: metadata.SplitBrain, Unit: "per epoch", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.SplitBrain) }},
	// How long changes failed under a fault is what the quorum promises
	// nothing about: information.
	{anomaly.Kind{Name: metadata.Unavailable, Unit: "per window", Rule: anomaly.Never}, func(x *Anomalies) int { return len(x.MetadataUnavailable) }},
}

// invalid names the first entry of a kind, so that the verdict's reason
// says what was lost or who led twice, not only how many.
func (metadataDomain) invalid(a *analysis, k anomaly.Kind, n int) string {
	x := &a.r.Anomalies
	first := ""
	switch {
	case k.Name == metadata.Lost && len(x.MetadataLost) > 0:
		e := x.MetadataLost[0]
		first = fmt.Sprintf("%s %s acked at %.1f s: want %s, node %d has %s", e.F, e.Topic, e.AckedS, e.Want, e.Node, e.Got)
	case k.Name == metadata.Diverged && len(x.MetadataDiverged) > 0:
		e := x.MetadataDiverged[0]
		first = fmt.Sprintf("node %d: %s", e.Node, strings.Join(e.Differences, "; "))
	case k.Name == metadata.SplitBrain && len(x.SplitBrain) > 0:
		first = x.SplitBrain[0].Why
	}
	if first == "" {
		return fmt.Sprintf("%s: %d", k.Name, n)
	}
	return fmt.Sprintf("%s: %d (first: %s)", k.Name, n, first)
}

func (metadataDomain) analyze(a *analysis) {
	r := a.c.meta.collector().Result()
	x := &a.r.Anomalies
	x.MetadataLost, x.MetadataDiverged, x.SplitBrain, x.MetadataUnavailable = r.Lost, r.Diverged, r.SplitBrain, r.Unavailable
	a.r.QuorumTerms = r.Terms
}

// metadataState is the Checker's collector of the domain's events,
// created at the first one.
type metadataState struct{ c *metadata.Collector }

func (m *metadataState) collector() *metadata.Collector {
	if m.c == nil {
		m.c = metadata.New(metadata.Options{})
	}
	return m.c
}

// add gives the domain e; it reports whether e is the domain's alone (the
// other domains then never see it). Nemesis ops go to every domain.
func (m *metadataState) add(e *histories.Event) (bool, error) {
	if e.Process == histories.NemesisProcess || metadata.Takes(e) {
		return metadata.Takes(e), m.collector().Add(e)
	}
	return false, nil
}
