package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Label marks every container and network of a run: org.kchaos.run=<run id>.
const Label = "org.kchaos.run"

// RemoveRun force-removes the containers (with their anonymous volumes) and
// networks labelled org.kchaos.run=runID; runID "" removes those of every
// run. It returns how many containers and networks it removed.
func RemoveRun(ctx context.Context, docker *client.Client, runID string) (int, error) {
	label := Label
	if runID != "" {
		label = Label + "=" + runID
	}
	f := client.Filters{}.Add("label", label)
	removed := 0
	var errs []error
	list, err := docker.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return 0, fmt.Errorf("list containers: %w", err)
	}
	for _, ctr := range list.Items {
		_, _ = docker.ContainerUnpause(ctx, ctr.ID, client.ContainerUnpauseOptions{})
		if _, err := docker.ContainerRemove(ctx, ctr.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, fmt.Errorf("remove container %s: %w", ctr.ID[:12], err))
			continue
		}
		removed++
	}
	nets, err := docker.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return removed, errors.Join(append(errs, fmt.Errorf("list networks: %w", err))...)
	}
	for _, n := range nets.Items {
		if _, err := docker.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// Clean removes what crashed runs left: every labelled container and
// network, and the data folders under dataRoot (default /var/tmp/kchaos),
// after clearing the immutable attributes and unmounting the tmpfs mounts
// that disk faults and bounded log dirs left in them.
func Clean(ctx context.Context, dataRoot string) (int, error) {
	docker, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return 0, fmt.Errorf("docker: %w", err)
	}
	defer docker.Close()
	n, err := RemoveRun(ctx, docker.Client, "")
	if dataRoot == "" {
		dataRoot = "/var/tmp/kchaos"
	}
	entries, _ := os.ReadDir(dataRoot)
	for _, e := range entries {
		// What the disk faults and bounded log dirs left: immutable
		// attributes and tmpfs mounts.
		if _, _, rerr := releaseDisks(filepath.Join(dataRoot, e.Name())); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if rerr := os.RemoveAll(filepath.Join(dataRoot, e.Name())); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return n, err
}

// Labelled lists the ids of containers and networks that carry the run
// label (runID "" for any run): what Teardown and Clean must leave empty.
func Labelled(ctx context.Context, runID string) (containers, networks []string, err error) {
	docker, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer docker.Close()
	label := Label
	if runID != "" {
		label += "=" + runID
	}
	f := client.Filters{}.Add("label", label)
	cl, err := docker.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cl.Items {
		containers = append(containers, c.ID)
	}
	nl, err := docker.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return containers, nil, err
	}
	for _, n := range nl.Items {
		networks = append(networks, n.ID)
	}
	return containers, networks, nil
}
