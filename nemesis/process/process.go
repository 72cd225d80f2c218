package process

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// restartWait bounds a restart's wait for the broker to be unfenced (a
// step's timeout overrides it). The clean stop's grace and the kill's wait
// are the seam's, whose Env.Stop and Env.Kill other rooms use too.
const restartWait = 90 * time.Second

// The process faults: pause and resume freeze and thaw the nodes' processes,
// kill, start and restart stop and start them.
var (
	pauseKind = processKind(histories.FPause, cluster.CapPause, nemesis.Kind{Heal: pauseHeal,
		UndoneBy: []string{histories.FResume}, Color: "#8e6bbf", LosesAcked: nemesis.No, MovesLeaders: nemesis.Yes,
		Draw: &nemesis.Draw{Rank: 1}})
	resumeKind = processKind(histories.FResume, cluster.CapPause, nemesis.Kind{Heal: nemesis.UndoOp,
		Color: histories.OtherFaultColor, LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn})
	killKind = processKind(histories.FKill, cluster.CapKill, nemesis.Kind{Heal: killHeal,
		UndoneBy: []string{histories.FStart, histories.FRestart}, Color: "#c0392b", LosesAcked: nemesis.Yes,
		MovesLeaders: nemesis.Yes, Draw: &nemesis.Draw{Rank: 2}})
	startKind = processKind(histories.FStart, cluster.CapKill, nemesis.Kind{Heal: nemesis.UndoOp,
		Color: histories.OtherFaultColor, LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn})
	// A restart undoes itself: it may be drawn, and needs no heal.
	restartKind = nemesis.Kind{Name: histories.FRestart, Needs: cluster.NewCaps(cluster.CapKill),
		New: func() nemesis.Params { return &RestartParams{} }, Heal: nemesis.Instant, Color: histories.OtherFaultColor,
		LosesAcked: nemesis.Yes, MovesLeaders: nemesis.Yes, Draw: &nemesis.Draw{Rank: 3}, Proof: nemesis.Proved, Bootstrap: true}
)

// processKind completes k, which says how the fault ends, is drawn and is
// drawn in the report, as a process fault: every one proves itself
// (proof.go), takes only a target, and acts through the backend alone,
// so it may strike while the cluster starts (nemesis.bootstrap).
func processKind(name string, c cluster.Capability, k nemesis.Kind) nemesis.Kind {
	k.Name, k.Needs, k.Proof, k.Bootstrap = name, cluster.NewCaps(c), nemesis.Proved, true
	k.New = func() nemesis.Params { return &processParams{} }
	return k
}

var (
	// pauseHeal resumes every paused node. First in a heal all: a frozen
	// node's rules cannot be removed.
	pauseHeal = &nemesis.HealKind{Name: histories.FPause, Rank: 1, Heal: func(ctx context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
		return healWith(ctx, e, d, "resumed", histories.FResume)
	}}
	// killHeal starts every stopped node (killed, powered off or stopped),
	// after the disks are healed. The rooms whose lasting faults leave
	// nodes down as a kill does name it (nemesis.HealNamed(histories.FKill):
	// nemesis/disk's lose-unflushed) rather than import this room.
	killHeal = &nemesis.HealKind{Name: histories.FKill, Rank: 5, Heal: func(ctx context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
		return healWith(ctx, e, d, "started", histories.FStart)
	}}
)

// healWith runs the process op op (resume, start) on every node it
// applies to, recording the nodes under what.
func healWith(ctx context.Context, e *nemesis.Env, d map[string]any, what, op string) ([]int32, error) {
	ids, _, err := (&processFault{op: op}).Inject(ctx, e)
	if len(ids) > 0 {
		d[what] = ids
	}
	return ids, err
}

// processParams: kill, start, pause and resume take only a target (start
// and resume without one mean every node that is down, or paused).
type processParams struct{}

func (*processParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if st.Fault == histories.FKill || st.Fault == histories.FPause {
		nemesis.ValidateNodeTarget(p, st, add)
	} else if st.Target != nil {
		nemesis.ValidateTarget(p+".target", st.Target, false, false, add)
	}
}

func (*processParams) Build(st nemesis.Step) nemesis.Fault {
	return &processFault{op: st.Fault, target: st.Target}
}

// RestartParams are a clean restart's.
type RestartParams struct {
	// ReadyWithin bounds the wait for the restarted broker to be unfenced
	// again (default restartWait).
	ReadyWithin nemesis.Duration `yaml:"timeout,omitempty"`
}

func (*RestartParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
}

func (rp *RestartParams) Build(st nemesis.Step) nemesis.Fault {
	return &processFault{op: st.Fault, target: st.Target, timeout: rp.ReadyWithin.Std()}
}

// processFault kills, starts, pauses, resumes or restarts nodes.
type processFault struct {
	op      string // histories.FKill, histories.FStart, histories.FPause, histories.FResume, histories.FRestart
	target  *nemesis.Target
	timeout time.Duration
	nodes   []int32 // what Inject touched, for Heal
}

func (f *processFault) Name() string { return f.op }

func (f *processFault) Spec() map[string]any {
	if f.target == nil {
		return nil
	}
	return map[string]any{"target": f.target}
}

// Inject applies the op to each target. Nodes already in the wanted state
// (killing a dead broker, resuming a running one) are skipped and named in
// the details rather than failing: a schedule's intent is then met.
func (f *processFault) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	ids, err := f.targets(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	var touched, skipped []int32
	var errs []error
	for _, id := range ids {
		st, err := e.Cluster.State(ctx, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done, err := f.apply(ctx, e, id, st.Running, st.Paused)
		switch {
		case err != nil:
			errs = append(errs, err)
		case done:
			touched = append(touched, id)
		default:
			skipped = append(skipped, id)
		}
	}
	f.nodes = touched
	var details map[string]any
	if len(skipped) > 0 {
		details = map[string]any{"skipped": skipped}
	}
	return touched, details, errors.Join(errs...)
}

// targets resolves the target; start and resume without one mean every
// node of the run that is down, or paused.
func (f *processFault) targets(ctx context.Context, e *nemesis.Env) ([]int32, error) {
	if f.target != nil {
		return e.Resolve(ctx, f.target)
	}
	if f.op != histories.FStart && f.op != histories.FResume {
		return nil, fmt.Errorf("%s needs a target", f.op)
	}
	return e.AllNodes(), nil
}

func (f *processFault) apply(ctx context.Context, e *nemesis.Env, id int32, running, paused bool) (bool, error) {
	switch f.op {
	case histories.FKill:
		if !running {
			return false, nil
		}
		if paused {
			// A frozen process cannot take SIGKILL until thawed.
			if err := e.Cluster.Resume(ctx, id); err != nil {
				return false, err
			}
		}
		return true, e.Kill(ctx, id)
	case histories.FStart:
		if running {
			return false, nil
		}
		return true, e.Start(ctx, id)
	case histories.FPause:
		if !running || paused {
			return false, nil
		}
		return true, e.Cluster.Pause(ctx, id)
	case histories.FResume:
		if !paused {
			return false, nil
		}
		return true, e.Resume(ctx, id)
	case histories.FRestart:
		if paused {
			if err := e.Resume(ctx, id); err != nil {
				return false, err
			}
		}
		if err := e.Stop(ctx, id); err != nil {
			return false, err
		}
		if err := e.Start(ctx, id); err != nil {
			return true, err
		}
		if !slices.Contains(e.BrokerIDs(), id) {
			return true, nil
		}
		// A clean restart is over when the broker is back in service, as in
		// a rolling restart; kill/start leave that wait to the schedule.
		limit := restartWait
		if f.timeout > 0 {
			limit = f.timeout
		}
		return true, e.WaitLive(ctx, []int32{id}, limit)
	}
	return false, fmt.Errorf("unknown process op %q", f.op)
}

// Heal undoes a kill (start) or a pause (resume) on the nodes it touched.
func (f *processFault) Heal(ctx context.Context, e *nemesis.Env) error {
	var undo string
	switch f.op {
	case histories.FKill:
		undo = histories.FStart
	case histories.FPause:
		undo = histories.FResume
	default:
		return nil
	}
	if len(f.nodes) == 0 {
		return nil
	}
	h := &processFault{op: undo, target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: f.nodes}}
	_, _, err := h.Inject(ctx, e)
	return err
}
