package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// Timeouts of process faults (a step's timeout overrides restartWait).
const (
	// stopGrace is how long a clean restart lets the broker shut down
	// after SIGTERM before Docker kills it.
	stopGrace = 60 * time.Second
	// killWait bounds the wait for a killed container to exit: a fault
	// that reports "killed" must not leave a process still writing.
	killWait = 20 * time.Second
	// restartWait bounds a restart's wait for the broker to be unfenced.
	restartWait = 90 * time.Second
)

// The process faults: pause and resume freeze and thaw the nodes' processes,
// kill, start and restart stop and start them.
var (
	pauseKind = processKind(histories.FPause, cluster.CapPause, Kind{Heal: pauseHeal,
		UndoneBy: []string{histories.FResume}, Color: "#8e6bbf", LosesAcked: No, MovesLeaders: Yes,
		Draw: &Draw{Rank: 1}, Bootstrap: true})
	resumeKind = processKind(histories.FResume, cluster.CapPause, Kind{Heal: UndoOp,
		Color: histories.OtherFaultColor, LosesAcked: No, MovesLeaders: No, Draw: NotDrawn, Bootstrap: true})
	killKind = processKind(histories.FKill, cluster.CapKill, Kind{Heal: KillHeal,
		UndoneBy: []string{histories.FStart, histories.FRestart}, Color: "#c0392b", LosesAcked: Yes,
		MovesLeaders: Yes, Draw: &Draw{Rank: 2}, Bootstrap: true})
	startKind = processKind(histories.FStart, cluster.CapKill, Kind{Heal: UndoOp,
		Color: histories.OtherFaultColor, LosesAcked: No, MovesLeaders: No, Draw: NotDrawn, Bootstrap: true})
	// A restart undoes itself: it may be drawn, and needs no heal.
	restartKind = Kind{Name: histories.FRestart, Needs: cluster.NewCaps(cluster.CapKill),
		New: func() Params { return &RestartParams{} }, Heal: Instant, Color: histories.OtherFaultColor,
		LosesAcked: Yes, MovesLeaders: Yes, Draw: &Draw{Rank: 3}, Proof: Proved, Bootstrap: true}
)

// processKind completes k, which says how the fault ends, is drawn and is
// drawn in the report, as a process fault: every one proves itself
// (proof.go) and takes only a target.
func processKind(name string, c cluster.Capability, k Kind) Kind {
	k.Name, k.Needs, k.Proof = name, cluster.NewCaps(c), Proved
	k.New = func() Params { return &processParams{} }
	return k
}

var (
	// pauseHeal resumes every paused node. First in a heal all: a frozen
	// node's rules cannot be removed.
	pauseHeal = &HealKind{Name: histories.FPause, Rank: 1, Heal: func(ctx context.Context, e *Env, d map[string]any) ([]int32, error) {
		return e.healWith(ctx, d, "resumed", histories.FResume)
	}}
	// KillHeal starts every stopped node (killed, powered off or stopped),
	// after the disks are healed. Exported for the rooms whose lasting
	// faults leave nodes down, as a kill does, and are healed by it
	// (nemesis/disk's lose-unflushed).
	KillHeal = &HealKind{Name: histories.FKill, Rank: 5, Heal: func(ctx context.Context, e *Env, d map[string]any) ([]int32, error) {
		return e.healWith(ctx, d, "started", histories.FStart)
	}}
)

// healWith runs the process op op (resume, start) on every node it
// applies to, recording the nodes under what.
func (e *Env) healWith(ctx context.Context, d map[string]any, what, op string) ([]int32, error) {
	ids, _, err := (&processFault{op: op}).Inject(ctx, e)
	if len(ids) > 0 {
		d[what] = ids
	}
	return ids, err
}

// processParams: kill, start, pause and resume take only a target (start
// and resume without one mean every node that is down, or paused).
type processParams struct{}

func (*processParams) Validate(p string, st *Step, add AddFunc) {
	if st.Fault == histories.FKill || st.Fault == histories.FPause {
		ValidateNodeTarget(p, st, add)
	} else if st.Target != nil {
		ValidateTarget(p+".target", st.Target, false, false, add)
	}
}

func (*processParams) Build(st Step) Fault { return &processFault{op: st.Fault, target: st.Target} }

// RestartParams are a clean restart's.
type RestartParams struct {
	// ReadyWithin bounds the wait for the restarted broker to be unfenced
	// again (default restartWait).
	ReadyWithin Duration `yaml:"timeout,omitempty"`
}

func (*RestartParams) Validate(p string, st *Step, add AddFunc) { ValidateNodeTarget(p, st, add) }

func (rp *RestartParams) Build(st Step) Fault {
	return &processFault{op: st.Fault, target: st.Target, timeout: rp.ReadyWithin.Std()}
}

// processFault kills, starts, pauses, resumes or restarts nodes.
type processFault struct {
	op      string // histories.FKill, histories.FStart, histories.FPause, histories.FResume, histories.FRestart
	target  *Target
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
func (f *processFault) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
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
func (f *processFault) targets(ctx context.Context, e *Env) ([]int32, error) {
	if f.target != nil {
		return e.Resolve(ctx, f.target)
	}
	if f.op != histories.FStart && f.op != histories.FResume {
		return nil, fmt.Errorf("%s needs a target", f.op)
	}
	return e.AllNodes(), nil
}

func (f *processFault) apply(ctx context.Context, e *Env, id int32, running, paused bool) (bool, error) {
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
		return true, e.resume(ctx, id)
	case histories.FRestart:
		if paused {
			if err := e.resume(ctx, id); err != nil {
				return false, err
			}
		}
		if err := e.Cluster.Stop(ctx, id, stopGrace); err != nil {
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
		return true, waitLive(ctx, e.State(), []int32{id}, limit)
	}
	return false, fmt.Errorf("unknown process op %q", f.op)
}

// Heal undoes a kill (start) or a pause (resume) on the nodes it touched.
func (f *processFault) Heal(ctx context.Context, e *Env) error {
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
	h := &processFault{op: undo, target: &Target{Role: RoleNodes, Nodes: f.nodes}}
	_, _, err := h.Inject(ctx, e)
	return err
}

// Kill sends SIGKILL and waits until the container has exited: the
// kill fault's own act, exported for the rooms whose faults kill a node
// as part of theirs (nemesis/disk's power loss).
func (e *Env) Kill(ctx context.Context, id int32) error {
	if err := e.Cluster.Kill(ctx, id); err != nil {
		return err
	}
	return e.waitStopped(ctx, id, killWait)
}

func (e *Env) waitStopped(ctx context.Context, id int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		st, err := e.Cluster.State(ctx, id)
		if err == nil && !st.Running {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("node %d still runs %s after SIGKILL", id, limit)
		}
	}
}

// Start starts a stopped node and removes rules a heal could not reach:
// the start fault's own act, exported for the rooms whose faults start a
// node again (nemesis/disk's lose-unflushed with start: true).
func (e *Env) Start(ctx context.Context, id int32) error {
	if err := e.Cluster.Start(ctx, id); err != nil {
		return err
	}
	return e.retryHeals(ctx, id)
}

// resume thaws a paused node and removes rules a heal could not reach.
func (e *Env) resume(ctx context.Context, id int32) error {
	if err := e.Cluster.Resume(ctx, id); err != nil {
		return err
	}
	return e.retryHeals(ctx, id)
}

// waitLive waits until the brokers ids are registered and unfenced.
func waitLive(ctx context.Context, src StateSource, ids []int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last []int32
	for {
		live, err := src.LiveBrokers(ctx)
		if err == nil {
			last = live
			ok := true
			for _, id := range ids {
				ok = ok && slices.Contains(live, id)
			}
			if ok {
				return nil
			}
		}
		if err := sleep(ctx, PollInterval); err != nil {
			return fmt.Errorf("brokers %v not live within %s (live: %v)", ids, limit, last)
		}
	}
}
