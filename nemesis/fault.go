package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// Fault is one kind of trouble for the cluster, modelled on etcd's
// robustness failpoints: a name, an injection that resolves its targets
// when it fires, and a heal that undoes it. Env.Inject and Env.HealFault
// wrap them with the history records.
type Fault interface {
	// Name is the f of the nemesis ops the fault records.
	Name() string
	// Inject applies the fault and returns the nodes it touched and what it
	// did (the shape's grudge, the offsets cut, ...), for the history.
	Inject(ctx context.Context, env *Env) (nodes []int32, details map[string]any, err error)
	// Heal undoes what Inject did; faults that need no undoing (restart,
	// an election, a config change) return nil.
	Heal(ctx context.Context, env *Env) error
}

// Heal undoes every fault of a heal kind across the run (HealKind.Heal,
// declared by the kind that owns it: partition, netem, pause, disk,
// kill, member), from the nodes' actual state rather than from
// bookkeeping; all runs every heal kind in Rank order and then waits, at
// most limit, until every broker is live and every partition of the topic
// has a leader. It is recorded as one heal op.
func (e *Env) Heal(ctx context.Context, kind string, limit time.Duration) error {
	return e.recordHeal(ctx, kind, func(ctx context.Context) ([]int32, map[string]any, error) {
		d := map[string]any{}
		var nodes []int32
		var errs []error
		all := kind == histories.HealAll
		for _, h := range heals() {
			if all || kind == h.Name {
				ids, err := h.Heal(ctx, e, d)
				nodes = append(nodes, ids...)
				errs = append(errs, err)
			}
		}
		if all {
			if p := e.pendingHeals(); len(p) > 0 {
				d["pending"] = p
				errs = append(errs, fmt.Errorf("kchaos rules may remain on nodes %v", p))
			}
			errs = append(errs, e.waitHealthy(ctx, limit))
		}
		if !slices.Contains(healNames(), kind) {
			errs = append(errs, fmt.Errorf("unknown heal %q", kind))
		}
		return nodes, d, errors.Join(errs...)
	})
}

// waitHealthy waits until every broker is live and every partition of the
// topic has a leader, within limit.
func (e *Env) waitHealthy(ctx context.Context, limit time.Duration) error {
	if e.Admin == nil {
		// A bootstrap schedule's heal (bootstrap.go): no broker answers
		// yet; the backend's own wait for a ready cluster follows it.
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := waitLive(ctx, e.State(), e.BrokerIDs(), limit); err != nil {
		return err
	}
	if e.Topic == "" {
		return nil
	}
	if last, ok := e.UntilTopic(ctx, func(parts []admin.PartitionState) (string, bool) {
		if len(parts) == 0 {
			return "", false
		}
		var offline []int32
		for _, p := range parts {
			if p.Leader < 0 {
				offline = append(offline, p.Partition)
			}
		}
		if len(offline) == 0 {
			return "", true
		}
		return fmt.Sprintf("partitions without a leader: %v", offline), false
	}); !ok {
		return fmt.Errorf("topic %s: not every partition has a leader within %s (%s)", e.Topic, limit, last)
	}
	return nil
}

// UntilTopic describes the workload topic every PollInterval until
// pending, given its partitions, says they are done, or ctx ends: then it
// returns the last thing pending (or the last error; a pending that says
// nothing keeps the one before) and false. It is exported for the rooms
// that wait on the topic as the final heal does (nemesis/quorum's
// upgrade waits for a broker back in the ISR).
func (e *Env) UntilTopic(ctx context.Context, pending func([]admin.PartitionState) (what string, done bool)) (string, bool) {
	var last string
	for {
		parts, err := e.State().Describe(ctx, e.Topic)
		if err != nil {
			last = err.Error()
		} else if what, done := pending(parts); done {
			return "", true
		} else if what != "" {
			last = what
		}
		if sleep(ctx, PollInterval) != nil {
			return last, false
		}
	}
}
