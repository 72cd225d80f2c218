package clients

import (
	"context"
	"errors"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// stopProducersKind ends the workload's producing: no backend capability
// (it acts on the workload's clients).
var stopProducersKind = nemesis.Kind{Name: histories.FStopProducers, New: func() nemesis.Params { return &StopProducersParams{} },
	Heal: nemesis.Instant, Color: "#5d6d7e", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, OnClients: true, Draw: nemesis.NotDrawn,
	Proof: "acts on the workload's own producers, which report when they stopped"}

// StopProducersParams are a stop-producers' (none: every producer stops).
type StopProducersParams struct{}

func (sp *StopProducersParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if st.Target != nil {
		add(p+".target", "stop-producers takes no target: it stops every workload producer and touches no broker")
	}
}

func (sp *StopProducersParams) Build(nemesis.Step) nemesis.Fault { return stopProducers{} }

// stopProducers makes the workload's producers go silent while its
// consumers read on: a transaction under way ends as at the end of the run
// (committed or aborted), and nothing is sent after. A story needs it when
// a producer writing again would undo what it shows: a transaction left
// open on a replica without its marker is closed by the next marker of the
// same producer on that partition, so KAFKA-20716's hang shows only once
// the producer is silent.
type stopProducers struct{}

func (stopProducers) Name() string         { return histories.FStopProducers }
func (stopProducers) Spec() map[string]any { return map[string]any{} }

func (stopProducers) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	if e.Clients == nil {
		return nil, nil, errors.New("no workload producers to stop (the run wires them into the nemesis; this env has none)")
	}
	d, err := e.Clients.StopProducers(ctx)
	return nil, d, err
}

// Heal: the producers stay stopped; the run ends without them.
func (stopProducers) Heal(context.Context, *nemesis.Env) error { return nil }
