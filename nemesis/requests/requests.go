// Package requests is the room of the request faults: they act on one
// request, not on a node or a link. The workload's clients reach the
// brokers through kchaos's Kafka-protocol proxy (nemesis/proxy), and a
// request fault adds a rule to it that drops, delays, repeats or answers
// the requests it selects. The kinds share this package's parameters
// (params.go), rule and proof (fault.go) and heal; each kind is a file of
// its own that names its action, and a line of kinds below.
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

import (
	"context"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// kinds are the room's fault kinds, in the order they are registered
// after the seam's own (nemesis.Register): errors and histories list them
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

// requestKind completes k as a request fault of action a: it needs no
// backend capability (the proxy runs on the kchaos host, in front of any
// backend's brokers), is healed by the requests heal, acts on what a
// client hears, so it can neither lose an acknowledged record by itself
// nor move a leader, and proves itself by the proxy's count.
//
// A random schedule draws it (rank: its place among the drawable kinds,
// after every kind before it) on the one API every workload sends,
// Produce (drawnRequest).
func requestKind(a proxy.ActionKind, color string, rank int) nemesis.Kind {
	return nemesis.Kind{Name: string(a), New: func() nemesis.Params { return &Params{} },
		Heal: requestHeal, Color: color, LosesAcked: nemesis.No, MovesLeaders: nemesis.No, OnClients: true,
		Draw:  &nemesis.Draw{Rank: rank, AnyBroker: true, Params: func(nemesis.RandomSchedule, string) nemesis.Params { return drawnRequest(a) }},
		Proof: nemesis.Proved, Requests: true}
}

// drawnRequest is a drawn request fault's parameters: on Produce (a
// delay holds it 2 s), every client, the first two
// requests selected, proved within 10 s, so that a drawn fault acts at
// once on any workload that produces, and a period's heal ends it. A
// rewrite-error or error-response answers NOT_LEADER_OR_FOLLOWER, the
// error a leader move gives: the client must refresh its metadata and
// send again.
func drawnRequest(a proxy.ActionKind) *Params {
	rp := &Params{API: []string{"Produce"}, First: 2, Within: nemesis.Duration(10 * time.Second)}
	switch a {
	case proxy.Delay:
		rp.Delay = nemesis.Duration(2 * time.Second)
	case proxy.DuplicateRequest:
		rp.Delay = nemesis.Duration(200 * time.Millisecond)
	case proxy.ErrorResponse, proxy.RewriteError:
		rp.Error = "NOT_LEADER_OR_FOLLOWER"
	}
	return rp
}

// requestHeal removes every request rule still active.
var requestHeal = &nemesis.HealKind{Name: histories.HealRequests, Rank: 0, Heal: func(_ context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
	if removed := removeRequestRules(e); len(removed) > 0 {
		d["rules"] = removed
	}
	return nil, nil
}}
