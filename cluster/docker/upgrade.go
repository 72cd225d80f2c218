package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/moby/moby/client"

	"github.com/kchaos/kchaos/cluster"
)

// upgradeStopGrace is how long Upgrade lets a node shut down cleanly
// (SIGTERM) before Docker kills it: a clean shutdown writes
// .kafka_cleanshutdown, so the upgraded node neither recovers its logs
// nor leaves the ISR for an unclean restart.
const upgradeStopGrace = 60 * time.Second

var _ cluster.Upgrader = (*Cluster)(nil)

// Upgrade runs node id on Kafka release version in place: it stops the
// container cleanly, removes it, and creates a new one from
// kchaos/kafka:<version> with the same name, address, labels, environment
// and bind mounts (the data dir, whose meta.properties makes the
// entrypoint skip formatting, and server.properties, rendered again: the
// rendering does not depend on the release). It returns once the new
// container runs.
func (c *Cluster) Upgrade(ctx context.Context, id int32, version string) error {
	n, ok := c.nodes[id]
	if !ok {
		return fmt.Errorf("node %d: no such node in run %s", id, c.cfg.RunID)
	}
	if _, err := cluster.ParseVersion(version); err != nil {
		return fmt.Errorf("node %d: upgrade: kafka %v", id, err)
	}
	image := cluster.Image(version)
	if _, err := c.docker.ImageInspect(ctx, image); err != nil {
		return fmt.Errorf("node %d: upgrade: image %s is not built: run `make image KAFKA_VERSION=%s`", id, image, version)
	}
	old, err := c.container(id)
	if err != nil {
		return err
	}
	// A paused container cannot stop cleanly.
	_, _ = c.docker.ContainerUnpause(ctx, old.GetContainerID(), client.ContainerUnpauseOptions{})
	secs := int(upgradeStopGrace.Seconds())
	if _, err := c.docker.ContainerStop(ctx, old.GetContainerID(), client.ContainerStopOptions{Timeout: &secs}); err != nil {
		return fmt.Errorf("node %d: upgrade: stop: %w", id, err)
	}
	// The old container's log goes with it: keep it, so that Logs and
	// CopyLogs show the node's whole life, release by release.
	from := c.versionOf(id)
	if b, err := containerLogs(ctx, old); err == nil {
		mark := fmt.Sprintf("--- kchaos: %s %d upgraded from %s to %s ---\n", n.Role, id, from, version)
		c.mu.Lock()
		c.prevLogs[id] = append(append(c.prevLogs[id], b...), mark...)
		c.mu.Unlock()
	}
	if _, err := c.docker.ContainerRemove(ctx, old.GetContainerID(), client.ContainerRemoveOptions{Force: true}); err != nil {
		return fmt.Errorf("node %d: upgrade: remove the %s container: %w", id, from, err)
	}
	ctr, _, err := c.createNode(ctx, n, image)
	c.mu.Lock()
	if ctr != nil {
		c.containers[id] = ctr
		c.versions[id] = version
	}
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("node %d: upgrade to %s: %w", id, version, err)
	}
	return nil
}

// NodeVersion is the Kafka release node id runs now.
func (c *Cluster) NodeVersion(id int32) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.versions[id]
	return v, ok
}

func (c *Cluster) versionOf(id int32) string {
	v, _ := c.NodeVersion(id)
	return v
}
