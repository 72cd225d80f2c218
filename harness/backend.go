package harness

import (
	"context"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
)

// startBackend starts the cluster on its backend. Docker is the only
// backend today; this (with the shutdown's wording in lifecycle.go) is
// where harness names it, so that the rest of a run (nemesis, workloads,
// report) holds a cluster.Cluster and an SSH backend needs a case here.
// On error the backend has already torn down what it made.
func startBackend(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	c, err := docker.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}
