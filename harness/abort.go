package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/workloads"
)

// abortHangingAndReread is final.abort_hanging: the operator's recovery
// from a hanging transaction (the abort-hanging fault, recorded as a
// nemesis op), then every partition read again, so that the history holds
// both the hang the first read saw and what the recovery cost (committed
// records an abort made unreadable). A recovery that fails is a warning in
// the history (the op completes info); the second read still runs.
func abortHangingAndReread(ctx context.Context, env *nemesis.Env, wl *workloads.Workload, adm *admin.Client, out *RunResult, ev progress.Sink) error {
	ev.Event(progress.Event{Phase: progress.FinalRead, Text: "aborting hanging transactions (final.abort_hanging), then reading again"})
	f, err := nemesis.NewFault(nemesis.Step{Fault: histories.FAbortHanging})
	if err != nil {
		return err
	}
	if err := env.Inject(ctx, f); err != nil {
		env.Log.Warn("abort-hanging", "err", err)
	}
	fr, err := wl.FinalRead(ctx, adm)
	out.FinalRead.Partitions = append(out.FinalRead.Partitions, fr.Partitions...)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("final read after abort-hanging: %w", err)
	}
	return nil
}
