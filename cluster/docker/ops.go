package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
)

func (c *Cluster) container(id int32) (*testcontainers.DockerContainer, error) {
	c.mu.RLock()
	ctr, ok := c.containers[id]
	c.mu.RUnlock()
	if !ok || ctr == nil {
		return nil, fmt.Errorf("node %d: no such node in run %s", id, c.cfg.RunID)
	}
	return ctr, nil
}

// Kill sends SIGKILL to node id's container (docker kill -s KILL): the
// process dies without flushing; its disk stays.
func (c *Cluster) Kill(ctx context.Context, id int32) error {
	return c.Signal(ctx, id, "KILL")
}

// Signal sends a signal (e.g. "KILL", "TERM", "STOP", "CONT") to node id's
// main process.
func (c *Cluster) Signal(ctx context.Context, id int32, sig string) error {
	ctr, err := c.container(id)
	if err != nil {
		return err
	}
	_, err = c.docker.ContainerKill(ctx, ctr.GetContainerID(), client.ContainerKillOptions{Signal: sig})
	if err != nil {
		return fmt.Errorf("node %d: signal %s: %w", id, sig, err)
	}
	return nil
}

// Start starts node id's stopped container again, with the same disk.
// It returns once the container runs, not once Kafka is ready.
func (c *Cluster) Start(ctx context.Context, id int32) error {
	ctr, err := c.container(id)
	if err != nil {
		return err
	}
	if _, err := c.docker.ContainerStart(ctx, ctr.GetContainerID(), client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("node %d: start: %w", id, err)
	}
	return nil
}

// Stop stops node id cleanly: SIGTERM, then SIGKILL after timeout.
func (c *Cluster) Stop(ctx context.Context, id int32, timeout time.Duration) error {
	ctr, err := c.container(id)
	if err != nil {
		return err
	}
	secs := int(timeout.Seconds())
	if _, err := c.docker.ContainerStop(ctx, ctr.GetContainerID(), client.ContainerStopOptions{Timeout: &secs}); err != nil {
		return fmt.Errorf("node %d: stop: %w", id, err)
	}
	return nil
}

// Pause freezes node id's processes (cgroup freezer, docker pause), trying
// again where the kernel did not finish the freeze (retryFreeze).
func (c *Cluster) Pause(ctx context.Context, id int32) error {
	ctr, err := c.container(id)
	if err != nil {
		return err
	}
	if err := retryFreeze(ctx, func() error {
		_, err := c.docker.ContainerPause(ctx, ctr.GetContainerID(), client.ContainerPauseOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("node %d: pause: %w", id, err)
	}
	return nil
}

// Resume thaws node id (docker unpause).
func (c *Cluster) Resume(ctx context.Context, id int32) error {
	ctr, err := c.container(id)
	if err != nil {
		return err
	}
	if _, err := c.docker.ContainerUnpause(ctx, ctr.GetContainerID(), client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("node %d: unpause: %w", id, err)
	}
	return nil
}

// State reports whether node id's container runs and whether it is paused.
func (c *Cluster) State(ctx context.Context, id int32) (cluster.NodeState, error) {
	ctr, err := c.container(id)
	if err != nil {
		return cluster.NodeState{}, err
	}
	st, err := ctr.State(ctx)
	if err != nil {
		return cluster.NodeState{}, fmt.Errorf("node %d: inspect: %w", id, err)
	}
	return cluster.NodeState{Running: st.Running, Paused: st.Paused, ExitCode: st.ExitCode}, nil
}

// Exec runs cmd in node id's container and returns its combined output; a
// non-zero exit is an error that carries the output.
func (c *Cluster) Exec(ctx context.Context, id int32, cmd ...string) (string, error) {
	ctr, err := c.container(id)
	if err != nil {
		return "", err
	}
	code, r, err := ctr.Exec(ctx, cmd, tcexec.Multiplexed())
	if err != nil {
		return "", fmt.Errorf("node %d: exec %v: %w", id, cmd, err)
	}
	out, _ := io.ReadAll(r)
	if code != 0 {
		return string(out), fmt.Errorf("node %d: exec %v: exit %d: %s", id, cmd, code, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// Logs returns node id's container output (the Kafka server log).
func (c *Cluster) Logs(ctx context.Context, id int32) ([]byte, error) {
	ctr, err := c.container(id)
	if err != nil {
		return nil, err
	}
	b, err := containerLogs(ctx, ctr)
	c.mu.RLock()
	prev := c.prevLogs[id]
	c.mu.RUnlock()
	if len(prev) > 0 {
		b = append(append([]byte{}, prev...), b...)
	}
	return b, err
}

// Admin returns an admin client for the cluster; the caller closes it.
func (c *Cluster) Admin() (*admin.Client, error) { return admin.New(c.Bootstrap()) }

// waitReady waits until every broker is registered and unfenced.
func (c *Cluster) waitReady(ctx context.Context, limit time.Duration) error {
	return cluster.WaitBrokers(ctx, c, c.brokers, limit)
}

// WaitBrokers waits until the given brokers are all registered and unfenced.
func (c *Cluster) WaitBrokers(ctx context.Context, ids []int32, limit time.Duration) error {
	return cluster.WaitBrokers(ctx, c, ids, limit)
}

// Teardown copies each node's log into Config.LogDir (when set), then
// removes the run's containers, network and data. It is safe to call more
// than once and from a signal handler's goroutine.
func (c *Cluster) Teardown(ctx context.Context) error {
	c.torn.Do(func() {
		var errs []error
		c.mu.RLock()
		logDir := c.cfg.LogDir
		c.mu.RUnlock()
		if logDir != "" {
			errs = append(errs, c.CopyLogs(ctx, logDir))
		}
		for _, id := range c.ids() {
			// Thaw first: a paused container cannot be removed cleanly.
			if ctr, err := c.container(id); err == nil {
				_, _ = c.docker.ContainerUnpause(ctx, ctr.GetContainerID(), client.ContainerUnpauseOptions{})
			}
		}
		_, err := removeRun(ctx, c.docker, c.cfg.RunID)
		errs = append(errs, err)
		// Immutable attributes and bounded dirs' tmpfs mounts, also with
		// KeepData: a run leaves no mount behind (a kept bounded dir's
		// content goes with its tmpfs).
		_, _, err = releaseDisks(filepath.Join(c.cfg.DataRoot, c.cfg.RunID))
		errs = append(errs, err)
		if !c.cfg.KeepData {
			errs = append(errs, os.RemoveAll(filepath.Join(c.cfg.DataRoot, c.cfg.RunID)))
		}
		c.tearErr = errors.Join(errs...)
	})
	return c.tearErr
}

// CopyLogs writes each node's container output to dir/<role>-<id>.log.
func (c *Cluster) CopyLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, id := range c.ids() {
		n := c.nodes[id]
		b, err := c.Logs(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("logs of %s %d: %w", n.Role, id, err))
			continue
		}
		errs = append(errs, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.log", n.Role, id)), b, 0o644))
	}
	return errors.Join(errs...)
}

// ids are the nodes that have a container, in id order.
func (c *Cluster) ids() []int32 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Sorted(maps.Keys(c.containers))
}

// containerLogs is one container's output.
func containerLogs(ctx context.Context, ctr *testcontainers.DockerContainer) ([]byte, error) {
	r, err := ctr.Logs(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
