package harness

import (
	"context"
	"fmt"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
)

// startBackend starts the cluster on its backend: this (with the
// shutdown's wording in lifecycle.go) is the one place harness names one,
// so that the rest of a run (nemesis, workloads, report) holds a
// cluster.Cluster. On error the backend has already torn down what it
// made.
func startBackend(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	switch cfg.Backend {
	case "", "docker":
		c, err := docker.Start(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return c, nil
	case "ssh":
		spec, ok := cfg.BackendSpec.(*sshb.Spec)
		if !ok || spec == nil {
			return nil, fmt.Errorf("cluster.backend ssh: no hosts given")
		}
		c, err := sshb.Start(ctx, cfg, *spec)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, fmt.Errorf("cluster.backend %q: want docker or ssh", cfg.Backend)
}

// tracking says what a shutdown must remove while the backend starts.
func tracking(cfg cluster.Config) string {
	if cfg.Backend == "ssh" {
		return fmt.Sprintf("run %s: connecting to the hosts (nothing changed on them yet)", cfg.RunID)
	}
	return fmt.Sprintf("run %s: containers and network being created (label %s=%s)", cfg.RunID, docker.Label, cfg.RunID)
}
