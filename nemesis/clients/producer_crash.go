package clients

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// producerCrash is the client-side half of a failure: a producer process
// dies mid-run while every broker is fine, and another process takes its
// place. It touches no node.
type producerCrash struct {
	producer *int
	down     time.Duration
}

func (f *producerCrash) Name() string { return histories.FProducerCrash }

func (f *producerCrash) Spec() map[string]any {
	m := map[string]any{"for": nemesis.Duration(f.down)}
	if f.producer != nil {
		m["producer"] = *f.producer
	}
	return m
}

func (f *producerCrash) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	if e.Clients == nil {
		return nil, nil, errors.New("no workload producers to crash (the run wires them into the nemesis; this env has none)")
	}
	n := e.Clients.Producers()
	i := 0
	if f.producer != nil {
		i = *f.producer
	} else {
		i = e.RandomIndex(n) // drawn when it fires, from the run's seed
	}
	if i < 0 || i >= n {
		return nil, nil, fmt.Errorf("producer %d: the workload has producers 0..%d", i, n-1)
	}
	d, err := e.Clients.CrashProducer(ctx, i, f.down)
	return nil, d, err
}

// Heal: nothing to undo, the successor is already running.
func (f *producerCrash) Heal(context.Context, *nemesis.Env) error { return nil }

// producerCrashKind crashes a workload client: no backend capability.
var producerCrashKind = nemesis.Kind{Name: histories.FProducerCrash, New: func() nemesis.Params { return &ProducerCrashParams{} },
	// The crash and the restart are one op (the restart is its end): a
	// crashed process loses nothing acked by itself.
	Heal: nemesis.Instant, Color: "#a04000", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, OnClients: true, Draw: nemesis.NotDrawn,
	Proof: "acts on the workload's own client: the sends it failed are recorded with the op"}

// ProducerCrashParams are a producer-crash's.
type ProducerCrashParams struct {
	// Producer is the workload's producer client to crash (0-based;
	// absent: one drawn with the run's seed when it fires).
	Producer *int `yaml:"producer,omitempty"`
	// Down is how long the crashed producer stays down before its
	// successor starts (default 0: at once).
	Down nemesis.Duration `yaml:"for,omitempty"`
}

func (cp *ProducerCrashParams) Build(nemesis.Step) nemesis.Fault {
	return &producerCrash{producer: cp.Producer, down: cp.Down.Std()}
}

// CheckAgainst: producer-crash crashes a plain producer of this
// workload, one it has.
func (cp *ProducerCrashParams) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	if v.Transactional {
		add(p+".fault", "%s crashes plain producers; transactional ones crash with workload.transactions.crash_rate (a successor fences the zombie)", st.Fault)
	}
	if cp.Producer != nil && *cp.Producer >= v.Producers {
		add(p+".producer", "%d: the workload has %d producer(s), 0..%d", *cp.Producer, v.Producers, v.Producers-1)
	}
}

func (cp *ProducerCrashParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if cp.Producer != nil && *cp.Producer < 0 {
		add(p+".producer", "must not be negative (the workload's producers are 0..workload.producers-1)")
	}
	if cp.Down < 0 || cp.Down.Std() > 10*time.Minute {
		add(p+".for", "want 0 to 10m (how long the producer stays down)")
	}
	if st.Target != nil {
		add(p+".target", "producer-crash takes producer: N (a workload producer), not a target: it touches no broker")
	}
}
