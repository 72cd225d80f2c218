package docker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Block I/O throttling of a broker's container, for the disk-slow fault:
// the kernel's blk-throttle (no module, no FUSE, no device-mapper),
// through the container's blkio cgroup on the host, where kchaos runs as
// root. Docker sets these limits only at creation (--device-write-bps);
// `docker update` cannot change them, so kchaos writes the cgroup files
// itself. Measured on this machine (cgroup v1, kernel 6.18, ext4 on
// virtio): with 64 KiB/s, 256 KiB written with O_DIRECT, with O_DSYNC, or
// buffered and then fsync'd, each took about 4 s inside the container; a
// buffered write without a sync returns at memory speed and the kernel's
// flusher writes it back outside the container's cgroup. cgroup v2
// (io.max) is not implemented: no machine here runs it to test it on.
//
// The cgroup lives while the container runs: a stop, kill or restart
// starts the broker in a fresh cgroup, without the limit.

// blkioRoot is where the cgroup v1 blkio hierarchy is mounted.
const blkioRoot = "/sys/fs/cgroup/blkio"

// blkioDir is the blkio cgroup folder of node id's running container.
func (c *Cluster) blkioDir(ctx context.Context, id int32) (string, error) {
	ctr, err := c.container(id)
	if err != nil {
		return "", err
	}
	st, err := ctr.State(ctx)
	if err != nil {
		return "", fmt.Errorf("node %d: inspect: %w", id, err)
	}
	if !st.Running || st.Pid == 0 {
		return "", fmt.Errorf("node %d does not run: its cgroup, and so a block I/O limit, exists only while it runs", id)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", st.Pid))
	if err != nil {
		return "", fmt.Errorf("node %d: %w", id, err)
	}
	return cgroupBlkio(string(b))
}

// cgroupBlkio finds the blkio folder in a /proc/<pid>/cgroup.
func cgroupBlkio(cgroup string) (string, error) {
	for _, l := range strings.Split(cgroup, "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "blkio") {
			return filepath.Join(blkioRoot, parts[2]), nil
		}
	}
	return "", errors.New("no cgroup v1 blkio controller: the block I/O limit is implemented for cgroup v1 only (blkio.throttle.*_bps_device); on cgroup v2 it would be io.max")
}

// blockDevice is the whole disk ("major:minor") under path: blk-throttle
// takes disks, not partitions.
func blockDevice(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	maj, mnr := unix.Major(st.Dev), unix.Minor(st.Dev)
	if maj == 0 {
		return "", fmt.Errorf("%s is on no block device (device %d:%d: tmpfs, overlay or another virtual file system): nothing to slow down", path, maj, mnr)
	}
	dev := fmt.Sprintf("%d:%d", maj, mnr)
	sys := filepath.Join("/sys/dev/block", dev)
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		b, err := os.ReadFile(filepath.Join(sys, "..", "dev"))
		if err != nil {
			return "", fmt.Errorf("%s: the disk of partition %s: %w", path, dev, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return dev, nil
}

var throttleFiles = []string{"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"}

// Throttle limits node id's reads and writes on the disk under its log dir
// dir to bytesPerSec (0 removes the limit).
func (c *Cluster) Throttle(ctx context.Context, id int32, dir int, bytesPerSec int64) (string, error) {
	p, err := c.logDir(id, dir)
	if err != nil {
		return "", err
	}
	if bytesPerSec < 0 {
		return "", fmt.Errorf("node %d: a negative I/O limit", id)
	}
	dev, err := blockDevice(p)
	if err != nil {
		return "", fmt.Errorf("node %d: log dir %d: %w", id, dir, err)
	}
	cg, err := c.blkioDir(ctx, id)
	if err != nil {
		return dev, err
	}
	for _, f := range throttleFiles {
		if err := os.WriteFile(filepath.Join(cg, f), fmt.Appendf(nil, "%s %d\n", dev, bytesPerSec), 0o644); err != nil {
			return dev, fmt.Errorf("node %d: %s: %w", id, f, err)
		}
	}
	return dev, nil
}

// Throttles lists node id's block I/O limits, "read 254:0 65536" and
// "write 254:0 65536"; none when it does not run.
func (c *Cluster) Throttles(ctx context.Context, id int32) ([]string, error) {
	cg, err := c.blkioDir(ctx, id)
	if err != nil {
		if st, serr := c.State(ctx, id); serr == nil && !st.Running {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, f := range throttleFiles {
		b, err := os.ReadFile(filepath.Join(cg, f))
		if err != nil {
			return out, err
		}
		kind := strings.TrimSuffix(strings.TrimPrefix(f, "blkio.throttle."), "_bps_device")
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, kind+" "+l)
			}
		}
	}
	return out, nil
}
