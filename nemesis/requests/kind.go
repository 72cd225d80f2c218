package requests

import (
	"context"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

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
