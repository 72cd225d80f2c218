package docker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kchaos/kchaos/cluster"
)

// The disk faults on the host side of the bind mounts. Every log dir of a
// broker is a host folder bind-mounted into its container, as the first
// always was, so that the faults work while the broker is down and leave
// the container unprivileged:
//
//   - unwritable: the immutable attribute (chattr +i, FS_IMMUTABLE_FL),
//     set by kchaos on the host, where it runs as root. Inside the
//     container Kafka runs as root too, so a chmod would not stop it (root
//     passes permission checks), and the container has neither
//     CAP_LINUX_IMMUTABLE nor CAP_SYS_ADMIN (a read-only remount) nor
//     needs them. On an immutable file every write fails with EPERM, also
//     through a descriptor Kafka opened before (measured on this kernel),
//     and an immutable folder refuses new entries and renames.
//   - bounded: a dir after the first with Config.LogDirSizeBytes is a tmpfs
//     of that size that kchaos mounts on the host at the bind's source
//     before the container starts (CAP_SYS_ADMIN of kchaos on the Docker
//     host, only with log_dir_size). Docker's own tmpfs mounts
//     (HostConfig.Tmpfs) were measured and rejected: the container's tmpfs
//     comes back empty at every start, and Kafka refuses to start on a log
//     dir without meta.properties ("No `meta.properties` found",
//     KafkaRaftServer.initializeLogDirs), so a kill or restart would end
//     the broker. The host tmpfs keeps its content across kill, restart and
//     upgrade, and the power-loss cut reads it like any other dir.
//     Teardown and Clean unmount it.

// logDirHost is the host folder of broker id's log dir i: the first is
// <node dir>/data, the others <node dir>/data-<i>.
func (c *Cluster) logDirHost(id int32, i int) string {
	if i == 0 {
		return c.HostDataDir(id)
	}
	return filepath.Join(c.dataDirs[id], "data-"+strconv.Itoa(i))
}

// tmpfsSource names the host tmpfs mounts of a run, so that Clean finds
// the ones a crashed run left.
func tmpfsSource(runID string) string { return "kchaos-" + runID }

// prepareLogDirs makes broker n's extra log dir folders under node dir,
// mounting a bounded one's tmpfs unless it is mounted already (an upgrade
// recreates the container on the same folders), and returns their binds.
func (c *Cluster) prepareLogDirs(n cluster.Node, dir string) ([]string, error) {
	if n.Role != cluster.RoleBroker {
		return nil, nil
	}
	var binds []string
	paths := cluster.LogDirPaths(c.cfg.LogDirs)
	for i := 1; i < len(paths); i++ {
		host := filepath.Join(dir, "data-"+strconv.Itoa(i))
		if err := os.MkdirAll(host, 0o755); err != nil {
			return nil, err
		}
		if size := c.cfg.LogDirSizeBytes; size > 0 {
			if err := mountTmpfs(host, tmpfsSource(c.cfg.RunID), size); err != nil {
				return nil, fmt.Errorf("broker %d: log dir %s (log_dir_size %s): %w", n.ID, paths[i], cluster.FormatSize(size), err)
			}
		}
		binds = append(binds, host+":"+paths[i])
	}
	return binds, nil
}

func mountTmpfs(at, source string, size int64) error {
	if mounted, err := isMountPoint(at); err != nil || mounted {
		return err
	}
	err := unix.Mount(source, at, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC,
		fmt.Sprintf("size=%d,mode=0755", size))
	if err != nil {
		return fmt.Errorf("mount a tmpfs at %s: %w (a bounded log dir is a tmpfs that kchaos mounts on the Docker host: run kchaos as root there)", at, err)
	}
	return nil
}

// mounts lists the mount points below root (mountinfo's fifth field),
// deepest first, so that they unmount in order.
func mounts(root string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root = filepath.Clean(root) + string(filepath.Separator)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		// mountinfo escapes space, tab, newline and backslash as octal.
		p := unescapeMountinfo(fields[4])
		if strings.HasPrefix(p+string(filepath.Separator), root) {
			out = append(out, p)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, sc.Err()
}

func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isMountPoint(p string) (bool, error) {
	ms, err := mounts(filepath.Dir(p))
	if err != nil {
		return false, err
	}
	for _, m := range ms {
		if m == filepath.Clean(p) {
			return true, nil
		}
	}
	return false, nil
}

// releaseDisks undoes on the host what the disk faults and bounded dirs
// left below root: it clears every immutable attribute (os.RemoveAll
// cannot remove an immutable file), then unmounts every mount point. It
// returns how many attributes it cleared and what it unmounted.
func releaseDisks(root string) (int, []string, error) {
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	n, err := setImmutableTree(root, false)
	ms, merr := mounts(root)
	err = errors.Join(err, merr)
	var done []string
	for _, m := range ms {
		if uerr := unix.Unmount(m, 0); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unmount %s: %w", m, uerr))
			continue
		}
		done = append(done, m)
	}
	return n, done, err
}

var _ cluster.Disks = (*Cluster)(nil)

// LogDirs are broker id's log dirs, in log.dirs order; a controller has
// only the first.
func (c *Cluster) LogDirs(id int32) []cluster.LogDir {
	n, ok := c.nodes[id]
	if !ok {
		return nil
	}
	count := c.cfg.LogDirs
	if n.Role != cluster.RoleBroker || count < 1 {
		count = 1
	}
	var out []cluster.LogDir
	for i, p := range cluster.LogDirPaths(count) {
		d := cluster.LogDir{Path: p}
		if i > 0 {
			d.SizeBytes = c.cfg.LogDirSizeBytes
		}
		out = append(out, d)
	}
	return out
}

func (c *Cluster) logDir(id int32, dir int) (string, error) {
	if _, err := c.container(id); err != nil {
		return "", err
	}
	if dirs := c.LogDirs(id); dir < 0 || dir >= len(dirs) {
		return "", fmt.Errorf("node %d has no log dir %d (it has %d: cluster.log_dirs)", id, dir, len(dirs))
	}
	return c.logDirHost(id, dir), nil
}

// DirFiles is broker id's log dir dir, on the host side of its bind mount.
func (c *Cluster) DirFiles(id int32, dir int) (cluster.LogFiles, error) {
	p, err := c.logDir(id, dir)
	if err != nil {
		return nil, err
	}
	return cluster.LocalDir(p), nil
}

// SetImmutable sets or clears the immutable attribute of the log dir and
// everything in it, on the host.
func (c *Cluster) SetImmutable(_ context.Context, id int32, dir int, on bool) (int, error) {
	p, err := c.logDir(id, dir)
	if err != nil {
		return 0, err
	}
	n, err := setImmutableTree(p, on)
	if err != nil {
		return n, fmt.Errorf("node %d: log dir %d: %w", id, dir, err)
	}
	return n, nil
}

// setImmutableTree sets or clears FS_IMMUTABLE_FL on root and every entry
// below it (symbolic links are skipped: the flag is not theirs to carry).
// A folder is set before its entries are listed, so that Kafka cannot add
// one behind the walk.
func setImmutableTree(root string, on bool) (int, error) {
	changed := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != root {
				return nil // deleted by Kafka during the walk
			}
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		ok, err := setImmutable(p, on)
		if errors.Is(err, fs.ErrNotExist) && p != root {
			return nil
		}
		if ok {
			changed++
		}
		return err
	})
	return changed, err
}

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h (chattr's 'i').
const fsImmutableFL = 0x00000010

// setImmutable sets or clears FS_IMMUTABLE_FL on p (FS_IOC_GETFLAGS and
// FS_IOC_SETFLAGS, as chattr does) and reports whether it changed it.
func setImmutable(p string, on bool) (bool, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return false, &fs.PathError{Op: "get attributes", Path: p, Err: err}
	}
	want := flags &^ fsImmutableFL
	if on {
		want = flags | fsImmutableFL
	}
	if want == flags {
		return false, nil
	}
	v := int(want)
	if err := unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, v); err != nil {
		return false, &fs.PathError{Op: "set attributes", Path: p, Err: err}
	}
	return true, nil
}

// Fill writes name in a bounded log dir until its file system is full.
func (c *Cluster) Fill(ctx context.Context, id int32, dir int, name string) (int64, error) {
	p, err := c.logDir(id, dir)
	if err != nil {
		return 0, err
	}
	if c.LogDirs(id)[dir].SizeBytes == 0 {
		return 0, fmt.Errorf("node %d: log dir %d shares the host's disk: only a bounded dir is filled (cluster.log_dir_size)", id, dir)
	}
	rel, err := cluster.LocalPath(name)
	if err != nil || strings.Contains(rel, "/") || rel == "." {
		return 0, fmt.Errorf("fill file %q: want a plain name in the log dir's root", name)
	}
	return fillFile(ctx, filepath.Join(p, rel))
}

// fillFile appends zeros to path until a write fails with ENOSPC (tmpfs
// keeps written zero pages, so the space is really taken).
func fillFile(ctx context.Context, path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var total int64
	for ctx.Err() == nil {
		n, err := f.Write(buf)
		total += int64(n)
		if errors.Is(err, unix.ENOSPC) {
			// The last pages: down to the byte.
			for _, size := range []int{4096, 512, 1} {
				for {
					n, err := f.Write(buf[:size])
					total += int64(n)
					if err != nil {
						break
					}
				}
			}
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	return total, ctx.Err()
}

// Usage is the free and total bytes of the log dir's file system.
func (c *Cluster) Usage(_ context.Context, id int32, dir int) (int64, int64, error) {
	p, err := c.logDir(id, dir)
	if err != nil {
		return 0, 0, err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return 0, 0, &fs.PathError{Op: "statfs", Path: p, Err: err}
	}
	return int64(st.Bavail) * st.Bsize, int64(st.Blocks) * st.Bsize, nil
}
