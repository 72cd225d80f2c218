package harness

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/metadata"
)

// metaRun is the metadata workload (workload.metadata) running beside the
// producers, on its own unretried admin client.
type metaRun struct {
	m        *metadata.Workload
	closeAdm func()
	done     chan error
	log      *slog.Logger
}

// startMetadata starts the metadata workload when the scenario has one
// (nil, nil otherwise); its admin clients reach the brokers at bootstrap
// (the request proxy's, when the run has one: they are clients too).
func startMetadata(ctx context.Context, s *scenario.Scenario, c cluster.Cluster, bootstrap []string, rec *histories.Recorder, log *slog.Logger) (*metaRun, error) {
	cfg := s.Workload.Metadata
	if !cfg.Enabled() {
		return nil, nil
	}
	wcfg := s.WorkloadConfig()
	wcfg.Runner = clientRunner(c) // driver java's admin client runs where the workload's JVMs do
	adm, closeAdm, err := workloads.NewMetaAdmin(wcfg, bootstrap)
	if err != nil {
		return nil, fmt.Errorf("metadata workload: %w", err)
	}
	rf := int16(min(3, len(c.Brokers())))
	mr := &metaRun{m: metadata.New(cfg, adm, rec, rf, s.Seed), closeAdm: closeAdm, done: make(chan error, 1), log: log}
	go func() { mr.done <- mr.m.Run(ctx) }()
	return mr, nil
}

// stop ends the metadata workload after its changes in flight.
func (mr *metaRun) stop() error {
	if mr == nil {
		return nil
	}
	mr.m.Stop()
	err := <-mr.done
	mr.closeAdm()
	st := mr.m.Stats()
	mr.log.Info("metadata workload done", "ok", st.OK, "fail", st.Fail, "info", st.Info)
	return err
}

// finalRead is the metadata final read of every broker and controller,
// with the final phase's read timeout as the convergence wait.
func (mr *metaRun) finalRead(ctx context.Context, s *scenario.Scenario, c cluster.Cluster, adm *admin.Client, rec *histories.Recorder) error {
	if mr == nil {
		return nil
	}
	if err := metadata.FinalRead(ctx, adm, rec, cluster.IDs(c.Brokers()), cluster.IDs(c.Controllers()), s.Final.ReadTimeout.Std()); err != nil {
		return fmt.Errorf("metadata final read: %w", err)
	}
	return nil
}
