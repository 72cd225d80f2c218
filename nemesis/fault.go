package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

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

// NewFault builds the fault a scripted step names.
func NewFault(st Step) (Fault, error) {
	switch st.Fault {
	case histories.FPartition:
		shape := st.Shape
		if shape == "" {
			shape = ShapeIsolate
		}
		if !slices.Contains(shapeNames, shape) {
			return nil, fmt.Errorf("unknown partition shape %q", shape)
		}
		return &partitionFault{shape: shape, target: st.Target, groups: st.Groups}, nil
	case histories.FKill, histories.FStart, histories.FPause, histories.FResume, histories.FRestart:
		return &processFault{op: st.Fault, target: st.Target, timeout: st.Timeout.Std()}, nil
	case histories.FLoseUnflushed:
		return &loseUnflushed{target: st.Target, start: st.Start, model: writebackOf(st)}, nil
	case histories.FSetConfig:
		return &setConfig{config: st.Config}, nil
	case histories.FElectUnclean, histories.FElectPreferred:
		return &elect{unclean: st.Fault == histories.FElectUnclean, target: st.Target}, nil
	case histories.FSetFeature:
		return &setFeature{features: st.Feature}, nil
	case histories.FMoveCoordinator:
		return &moveCoordinator{target: st.Target}, nil
	case histories.FUpgrade:
		return &rollingUpgrade{step: st}, nil
	case histories.FMemberKill, histories.FMemberLeave, histories.FMemberStart, histories.FMemberStall:
		return &memberFault{op: st.Fault, member: st.Member, d: st.For.Std()}, nil
	case histories.FNetem:
		return newNetem(st)
	case histories.FCutClients:
		return &cutClients{target: st.Target}, nil
	case histories.FProducerCrash:
		return &producerCrash{producer: st.Producer, down: st.For.Std()}, nil
	case histories.FDiskFail, histories.FDiskFull:
		dir := -1 // Validate requires one; Inject refuses a fault without
		if st.Dir != nil {
			dir = *st.Dir
		}
		return &diskFault{op: st.Fault, target: st.Target, dir: dir, timeout: st.Timeout.Std()}, nil
	case histories.FDiskSlow:
		dir := -1
		if st.Dir != nil {
			dir = *st.Dir
		}
		rate, _ := parseDiskRate(st.Rate) // Validate reported a bad one; Inject refuses 0
		return &diskFault{op: st.Fault, target: st.Target, dir: dir, rate: rate}, nil
	}
	return nil, fmt.Errorf("unknown fault %q", st.Fault)
}

// setConfig changes topic configs live (for instance
// unclean.leader.election.enable=true while a partition is offline, which
// makes the controller elect a replica outside the ISR). It has no heal:
// a config change is a deliberate act whose effect is the point.
type setConfig struct{ config map[string]*string }

func (f *setConfig) Name() string { return histories.FSetConfig }

func (f *setConfig) Spec() map[string]any { return map[string]any{"config": f.config} }

func (f *setConfig) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	set := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(f.config)) {
		err := e.adminCall(ctx, func(ctx context.Context) error {
			return e.Admin.SetTopicConfig(ctx, e.Topic, k, f.config[k])
		})
		if err != nil {
			return nil, map[string]any{"topic": e.Topic, "config": set}, err
		}
		set[k] = nil // deleted: the broker default applies again
		if v := f.config[k]; v != nil {
			set[k] = *v
		}
	}
	return nil, map[string]any{"topic": e.Topic, "config": set}, nil
}

func (f *setConfig) Heal(context.Context, *Env) error { return nil }

// elect triggers a leader election by hand: unclean (ElectLeaders type
// UNCLEAN, which may pick a replica outside the ISR, losing what only the
// old leader had) or preferred. The nodes it touched are the leaders it
// left; without a target it covers every partition of the topic.
type elect struct {
	unclean bool
	target  *Target
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

func (f *elect) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
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
	err = e.adminCall(ctx, func(ctx context.Context) error {
		// Through a broker that runs, is not frozen and reaches the
		// controller (it forwards the request), in readers' order: kgo's
		// own pick may be a paused broker that times every request out.
		via := e.readers(ctx)
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
	after, leaders := e.leaders(ctx, e.Topic, ids, want)
	return leaders, map[string]any{"leaders_before": before, "leaders_after": after}, nil
}

// leaders reads the partitions' leaders just after an election, until each
// has one and each partition in want has that leader. The controller
// answers once its quorum committed the change; a broker's metadata cache
// follows a moment later (hundreds of milliseconds on a loaded machine), so
// one Describe may still show the old leader.
func (e *Env) leaders(ctx context.Context, topic string, ids []int32, want map[int32]int32) (map[string]int32, []int32) {
	out := map[string]int32{}
	var nodes []int32
	for range 50 {
		parts, err := e.State().Describe(ctx, topic)
		if err == nil {
			all := true
			for _, p := range parts {
				if slices.Contains(ids, p.Partition) {
					out[histories.PartitionKey(p.Partition)] = p.Leader
					w, ok := want[p.Partition]
					all = all && p.Leader >= 0 && (!ok || p.Leader == w)
				}
			}
			if all {
				break
			}
		}
		if sleep(ctx, PollInterval) != nil {
			break
		}
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if l := out[k]; l >= 0 {
			nodes = append(nodes, l)
		}
	}
	return out, nodes
}

func (f *elect) Heal(context.Context, *Env) error { return nil }

// Heal undoes every fault of a kind across the run, from the containers'
// actual state rather than from bookkeeping, so that it also repairs what
// an interrupted injection left half done: partition removes every kchaos
// rule (partitions and client cuts), netem every kchaos qdisc and loss
// rule (tagged kchaos-netem, which heal partition leaves alone), pause
// resumes every paused node, disk makes every log dir writable and
// removes every fill file, kill starts every stopped node (killed,
// powered off or stopped), and all does the four and then waits,
// at most limit, until every broker is live and every partition of the
// topic has a leader. It is recorded as one heal op.
func (e *Env) Heal(ctx context.Context, kind string, limit time.Duration) error {
	return e.recordHeal(ctx, kind, func(ctx context.Context) ([]int32, map[string]any, error) {
		d := map[string]any{}
		var nodes []int32
		var errs []error
		do := func(on bool, what string, f func(context.Context) ([]int32, error)) {
			if !on {
				return
			}
			ids, err := f(ctx)
			nodes = append(nodes, ids...)
			if len(ids) > 0 {
				d[what] = ids
			}
			errs = append(errs, err)
		}
		all := kind == histories.HealAll
		do(all || kind == histories.FPause, "resumed", e.resumeAll)
		if all || kind == histories.FPartition {
			n, pending, err := e.healPartitions(ctx)
			d["rules_removed"] = n
			if len(pending) > 0 {
				// Down or paused: cleaned when started or resumed.
				d["deferred"] = pending
			}
			errs = append(errs, err)
		}
		// Disks before starts: a broker must not start on a frozen dir.
		do(all || kind == histories.HealDisk, "disks_healed", e.healDisks)
		if all || kind == histories.FNetem {
			n, rules, pending, err := e.healNetem(ctx) // netem.go
			d["qdiscs_removed"] = n
			if rules > 0 {
				d["loss_rules_removed"] = rules
			}
			if len(pending) > 0 {
				d["netem_deferred"] = pending
			}
			errs = append(errs, err)
		}
		do(all || kind == histories.FKill, "started", e.startAll)
		if all || kind == histories.HealMember {
			started, err := e.startMembers(ctx)
			if len(started) > 0 {
				d["members_started"] = started
			}
			errs = append(errs, err)
		}
		if all {
			if p := e.Pending(); len(p) > 0 {
				d["pending"] = p
				errs = append(errs, fmt.Errorf("kchaos rules may remain on nodes %v", p))
			}
			errs = append(errs, e.waitHealthy(ctx, limit))
		}
		if !slices.Contains(healNames, kind) {
			errs = append(errs, fmt.Errorf("unknown heal %q", kind))
		}
		return nodes, d, errors.Join(errs...)
	})
}

func (e *Env) resumeAll(ctx context.Context) ([]int32, error) {
	f := &processFault{op: histories.FResume}
	ids, _, err := f.Inject(ctx, e)
	return ids, err
}

func (e *Env) startAll(ctx context.Context) ([]int32, error) {
	f := &processFault{op: histories.FStart}
	ids, _, err := f.Inject(ctx, e)
	return ids, err
}

// waitHealthy waits until every broker is live and every partition of the
// topic has a leader, within limit.
func (e *Env) waitHealthy(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := waitLive(ctx, e.State(), e.brokerIDs(), limit); err != nil {
		return err
	}
	if e.Topic == "" {
		return nil
	}
	var last string
	for {
		parts, err := e.State().Describe(ctx, e.Topic)
		if err == nil && len(parts) > 0 {
			var offline []int32
			for _, p := range parts {
				if p.Leader < 0 {
					offline = append(offline, p.Partition)
				}
			}
			if len(offline) == 0 {
				return nil
			}
			last = fmt.Sprintf("partitions without a leader: %v", offline)
		} else if err != nil {
			last = err.Error()
		}
		if sleep(ctx, PollInterval) != nil {
			return fmt.Errorf("topic %s: not every partition has a leader within %s (%s)", e.Topic, limit, last)
		}
	}
}
