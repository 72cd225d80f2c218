package checker

import (
	"github.com/kchaos/kchaos/checker/metadata"
	"github.com/kchaos/kchaos/histories"
)

// metadataDomain is the KRaft metadata domain, package metadata: the
// admin client's metadata changes, the nodes' final metadata reads and
// the quorum samples. This file only feeds it the domain's events as the
// history streams, and at the end the controllers' auto-join settings
// (Options.ControllerConfigs, from run.json), which only its voter-set
// judgement reads; its quorum terms are results.json's quorum_terms.
var metadataDomain = port(metadata.Analyzer,
	func(x *Anomalies) *metadata.MetadataAnomalies { return &x.MetadataAnomalies },
	glue[*metadata.Found]{
		decoded: func(c *checker) any {
			return c.meta.collector().WithAutoJoin(metadata.AutoJoinFrom(c.opts.ControllerConfigs))
		},
		place: func(r *Result, f *metadata.Found) { r.QuorumTerms = f.Terms }})

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
