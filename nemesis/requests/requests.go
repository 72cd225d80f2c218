// Package requests is the room of the request faults: they act on one
// request, not on a node or a link. The workload's clients reach the
// brokers through kchaos's Kafka-protocol proxy (nemesis/proxy), and a
// request fault adds a rule to it that drops, delays, repeats or answers
// the requests it selects. The kinds share this package's parameters
// (params.go), rule and proof (fault.go), kind and heal (kind.go); each
// kind is a file of its own that names its action, and a line of kinds
// below.
//
// A request fault is lasting: its rule selects requests until `heal:
// requests`, the final heal, or the end of its `for:` window. Its proof is
// the proxy's own count: the step waits (at most `within`) until the rule
// has acted at least once, so a story can go on "after the EndTxn response
// was dropped"; a rule that selected nothing in that time had no effect,
// said as for every other fault. Each action is also a history event of
// its own (f "request", process -1, type info; docs/HISTORY.md), written as
// it happens (Record).
//
// The room imports the seam (package nemesis) and registers its kinds
// there at init; nemesis never imports it. A program that runs schedules
// links it through nemesis/kinds.
package requests

import "github.com/kchaos/kchaos/nemesis"

// kinds are the room's fault kinds, in the order they are registered
// (nemesis.Register): errors and histories list them
// in this order, so a kind added later goes last.
var kinds = []nemesis.Kind{
	dropRequestKind,
	dropResponseKind,
	delayKind,
	duplicateRequestKind,
	resetAfterRequestKind,
	errorResponseKind,
	rewriteErrorKind,
}

func init() {
	for _, k := range kinds {
		nemesis.Register(k)
	}
}
