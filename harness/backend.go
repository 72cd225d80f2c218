package harness

import (
	"context"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
)

// startCluster starts the run's cluster on its backend. Docker is the only
// backend today; this is the one place that names it, so that the rest of
// a run (nemesis, workloads, report) holds a cluster.Cluster and an SSH
// backend needs a case here and nothing else. On error the backend has
// already torn down what it made.
func startCluster(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	c, err := docker.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}
