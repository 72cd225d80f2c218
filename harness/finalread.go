package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/workloads"
)

// finalRead is a run's last phase, once the workload stopped: every
// partition read to its end, the group coordinator's and the metadata
// workload's state read back, hanging transactions aborted where the
// scenario asks, and the caller's inspection. After a Ctrl-C (ctx done)
// it still runs, on a fresh context bounded by its timeout, so the
// history stays checkable.
func (r *run) finalRead(ctx context.Context, c cluster.Cluster, adm *admin.Client, rec *histories.Recorder,
	wl *workloads.Workload, meta *metaRun, env *nemesis.Env) error {
	s, opts, ev, out := r.s, r.opts, r.ev, r.out
	r.setPhase(ctx, progress.FinalRead)
	ev.Event(progress.Event{Phase: progress.FinalRead, Text: fmt.Sprintf("reading every partition to its end (at most %s)", s.Final.ReadTimeout)})
	fctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), s.Final.ReadTimeout.Std()+10*time.Second)
		defer cancel()
	}
	fr, err := wl.FinalRead(fctx, adm)
	out.FinalRead = fr
	if err != nil && !errors.Is(err, context.Canceled) {
		ev.Event(progress.Event{Phase: progress.FinalRead, Text: err.Error(), Done: true, Failed: true})
		return fmt.Errorf("final read: %w", err)
	}
	// The group coordinator's state read back (workloads.GroupFinal):
	// after the final read, when no member commits any more.
	if err := wl.GroupFinal(fctx, adm); err != nil && !errors.Is(err, context.Canceled) {
		ev.Event(progress.Event{Phase: progress.FinalRead, Text: err.Error(), Done: true, Failed: true})
		return fmt.Errorf("group read-back: %w", err)
	}
	if err := meta.finalRead(fctx, s, c, adm, rec); err != nil && !errors.Is(err, context.Canceled) {
		ev.Event(progress.Event{Phase: progress.FinalRead, Text: err.Error(), Done: true, Failed: true})
		return err
	}
	if s.Final.AbortHanging && fctx.Err() == nil {
		if err := abortHangingAndReread(fctx, env, wl, adm, out, ev); err != nil {
			return err
		}
	}
	if opts.Inspect != nil && fctx.Err() == nil {
		if err := opts.Inspect(fctx, c); err != nil {
			return fmt.Errorf("inspect: %w", err)
		}
	}
	ev.Event(progress.Event{Phase: progress.FinalRead, Text: "done", Done: true})
	return nil
}
