package checker

import "github.com/kchaos/kchaos/checker/linearize"

// linearity is the linearizability domain, package linearize: porcupine's
// search for a linearization of each partition's log (with the model in
// package logmodel), kchaos's extension of the contract. Its result is
// results.json's "linearizable".
var linearity = port(linearize.Analyzer,
	func(x *Anomalies) *linearize.LinAnomalies { return &x.LinAnomalies },
	glue[*linearize.Analysis]{place: func(r *Result, f *linearize.Analysis) {
		r.Linearizable = f.Linearizable
		r.Reasons = append(r.Reasons, f.Reasons...)
	}, background: true}) // it reads the history and the acked sends alone

// tighten: open-ended appends are tightened (see package logmodel); a test
// turns it off to show that it changes no verdict.
var tighten = true

// The analyzer's result types that the report and the harness read
// (package linearize owns them).
type (
	Linearizable = linearize.Linearizable
	LinPartition = linearize.LinPartition
	Window       = linearize.Window
)

// visualizationName is the file name of porcupine's HTML visualization of
// a topic-partition (package linearize writes it).
func visualizationName(topic string, partition int32) string {
	return linearize.VisualizationName(topic, partition)
}
