package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// The elections go through the admin API: every backend can.
var (
	// An unclean election may elect a replica without the acked records.
	electUncleanKind = nemesis.Kind{Name: histories.FElectUnclean, New: func() nemesis.Params { return &electParams{} },
		Heal: nemesis.Instant, Color: "#e0457b", LosesAcked: nemesis.Yes, MovesLeaders: nemesis.Yes, Draw: nemesis.NotDrawn, Proof: nemesis.AdminProof}
	// A preferred election puts back the leader the replicas prefer.
	electPreferredKind = nemesis.Kind{Name: histories.FElectPreferred, New: func() nemesis.Params { return &electParams{} },
		Heal: nemesis.Instant, Color: "#e0457b", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: nemesis.AdminProof}
)

// electParams: an election takes only a target, a bare partition (none:
// every partition of the topic).
type electParams struct{}

func (*electParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if st.Target != nil {
		nemesis.ValidateTarget(p+".target", st.Target, true, false, add)
	}
}

func (*electParams) Build(st nemesis.Step) nemesis.Fault {
	return &elect{unclean: st.Fault == histories.FElectUnclean, target: st.Target}
}

// elect triggers a leader election by hand: unclean (ElectLeaders type
// UNCLEAN, which may pick a replica outside the ISR, losing what only the
// old leader had) or preferred. The nodes it touched are the leaders it
// left; without a target it covers every partition of the topic.
type elect struct {
	unclean bool
	target  *nemesis.Target
}

func (f *elect) Name() string {
	if f.unclean {
		return histories.FElectUnclean
	}
	return histories.FElectPreferred
}

func (f *elect) Spec() map[string]any {
	if f.target == nil {
		return nil
	}
	return map[string]any{"partition": f.target.Partition}
}

func (f *elect) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	parts, err := e.State().Describe(ctx, e.Topic)
	if err != nil {
		return nil, nil, err
	}
	var ids []int32
	before := map[string]int32{}
	// want: the leader a preferred election must give a partition, its
	// first replica when that one is in the ISR (otherwise Kafka answers
	// PREFERRED_LEADER_NOT_AVAILABLE and the step fails).
	want := map[int32]int32{}
	for _, p := range parts {
		if f.target == nil || p.Partition == f.target.Partition {
			ids = append(ids, p.Partition)
			before[histories.PartitionKey(p.Partition)] = p.Leader
			if !f.unclean && len(p.Replicas) > 0 && slices.Contains(p.ISR, p.Replicas[0]) {
				want[p.Partition] = p.Replicas[0]
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("topic %s has no partition %d", e.Topic, f.target.Partition)
	}
	err = e.AdminCall(ctx, func(ctx context.Context) error {
		// Through a broker that runs, is not frozen and reaches the
		// controller (it forwards the request), in readers' order: kgo's
		// own pick may be a paused broker that times every request out.
		via := e.Readers(ctx)
		if len(via) == 0 {
			return e.Admin.ElectLeaders(ctx, e.Topic, ids, f.unclean)
		}
		var errs []error
		for _, b := range via {
			err := e.Admin.ElectLeadersVia(ctx, b, e.Topic, ids, f.unclean)
			var ke *kerr.Error
			if err == nil || (errors.As(err, &ke) && !ke.Retriable) || ctx.Err() != nil {
				return err
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
	if err != nil {
		return nil, map[string]any{"leaders_before": before}, err
	}
	after, leaders := e.Leaders(ctx, e.Topic, ids, want)
	return leaders, map[string]any{"leaders_before": before, "leaders_after": after}, nil
}

func (f *elect) Heal(context.Context, *nemesis.Env) error { return nil }
