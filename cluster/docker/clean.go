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

// removeRun force-removes the containers (with their anonymous volumes) and
// networks labelled org.kchaos.run=runID; runID "" removes those of every
// run. It returns how many containers and networks it removed.
func removeRun(ctx context.Context, docker *client.Client, runID string) (int, error) {
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

// DataMarker is the file kchaos writes into every run's data folder
// (DataRoot/<run id>/) when it makes it: Clean removes only folders that
// hold it, so that a data root given by mistake (--data ~) loses nothing
// kchaos did not make.
const DataMarker = ".kchaos-data"

// makeDataDir makes a run's data folder under root and marks it as
// kchaos's (DataMarker). Start calls it before any node's folder.
func makeDataDir(root, runID string) (string, error) {
	dir := filepath.Join(root, runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("data folder: %w", err)
	}
	marker := "kchaos run " + runID + ": this folder and what it holds are kchaos's; 'kchaos clean' removes it\n"
	if err := os.WriteFile(filepath.Join(dir, DataMarker), []byte(marker), 0o644); err != nil {
		return "", fmt.Errorf("data folder: %w", err)
	}
	return dir, nil
}

// Cleaned is what Clean removed, and what it left.
type Cleaned struct {
	// Labelled counts the containers and networks removed.
	Labelled int
	// Removed are the data folders removed (names under the root); Left
	// the entries of the root that are not kchaos's (no DataMarker), left
	// as they were.
	Removed, Left []string
}

// Clean removes what crashed runs left: every labelled container and
// network, and the data folders under dataRoot (default /var/tmp/kchaos)
// (CleanData).
func Clean(ctx context.Context, dataRoot string) (Cleaned, error) {
	docker, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return Cleaned{}, fmt.Errorf("docker: %w", err)
	}
	defer docker.Close()
	n, err := removeRun(ctx, docker.Client, "")
	removed, left, derr := cleanData(dataRoot)
	return Cleaned{Labelled: n, Removed: removed, Left: left}, errors.Join(err, derr)
}

// cleanData removes the data folders under root (default /var/tmp/kchaos)
// that kchaos made (those holding DataMarker; a symbolic link is never
// followed), after clearing the immutable attributes and unmounting the
// tmpfs mounts that disk faults and bounded log dirs left in them. Every
// other entry is left, and listed.
func cleanData(root string) (removed, left []string, err error) {
	if root == "" {
		root = "/var/tmp/kchaos"
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() {
			left = append(left, e.Name())
			continue
		}
		if st, merr := os.Lstat(filepath.Join(dir, DataMarker)); merr != nil || !st.Mode().IsRegular() {
			left = append(left, e.Name())
			continue
		}
		// What the disk faults and bounded log dirs left: immutable
		// attributes and tmpfs mounts.
		if _, _, rerr := releaseDisks(dir); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if rerr := os.RemoveAll(dir); rerr != nil {
			err = errors.Join(err, rerr)
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, left, err
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
