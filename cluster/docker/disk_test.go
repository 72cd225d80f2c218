package docker

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// hostDir is a folder on the host's disk (not a tmpfs /tmp may be, or
// whose attributes a test runner's file system may not support); the
// tests that need root skip without it.
func hostDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the immutable attribute and mounts")
	}
	d, err := os.MkdirTemp("/var/tmp", "kchaos-disktest-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		_, _, _ = releaseDisks(d)
		_ = os.RemoveAll(d)
	})
	return d
}

// TestImmutableTree: an immutable tree refuses a new file, a write through
// a descriptor opened before, a rename and a delete, also to root; clearing
// it restores every one, and releaseDisks clears it for RemoveAll.
func TestImmutableTree(t *testing.T) {
	d := hostDir(t)
	seg := filepath.Join(d, "orders-0", "00000000000000000000.log")
	if err := os.MkdirAll(filepath.Dir(seg), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := setImmutableTree(d, true)
	if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EOPNOTSUPP) {
		t.Skipf("file system of %s has no immutable attribute: %v", d, err)
	}
	if err != nil || n != 3 {
		t.Fatalf("set: %d entries, %v; want 3 (dir, partition dir, segment)", n, err)
	}
	if n, err := setImmutableTree(d, true); err != nil || n != 0 {
		t.Errorf("set again: %d changed, %v; want 0", n, err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("write through an open descriptor: %v, want EPERM", err)
	}
	if err := os.WriteFile(filepath.Join(d, "replication-offset-checkpoint.tmp"), nil, 0o644); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("new file: %v, want EPERM", err)
	}
	if err := os.Remove(seg); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("remove: %v, want EPERM", err)
	}
	n, mounted, err := releaseDisks(d)
	if err != nil || n != 3 || len(mounted) != 0 {
		t.Fatalf("release: %d cleared, unmounted %v, %v; want 3, none", n, mounted, err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Errorf("write after clearing: %v", err)
	}
}

// TestBoundedDir: a tmpfs of a given size, filled to the byte; then a
// write that needs a new page fails with ENOSPC, and releaseDisks
// unmounts it so that nothing is left mounted.
func TestBoundedDir(t *testing.T) {
	d := hostDir(t)
	at := filepath.Join(d, "broker-0", "data-1")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mountTmpfs(at, "kchaos-test", 4<<20); err != nil {
		t.Skip(err)
	}
	if err := mountTmpfs(at, "kchaos-test", 4<<20); err != nil {
		t.Fatalf("a second mount of a mounted dir: %v, want none (upgrade recreates the container)", err)
	}
	if ms, err := mounts(d); err != nil || len(ms) != 1 || ms[0] != at {
		t.Fatalf("mounts below %s: %v, %v; want [%s]", d, ms, err, at)
	}
	n, err := fillFile(context.Background(), filepath.Join(at, "kchaos-fill"))
	if err != nil || n < 4<<20-4096 || n > 4<<20 {
		t.Fatalf("fill: %d bytes, %v; want about 4 MiB", n, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(at, &st); err != nil || st.Bavail != 0 {
		t.Errorf("free blocks after the fill: %d, %v; want 0", st.Bavail, err)
	}
	if err := os.WriteFile(filepath.Join(at, "checkpoint.tmp"), make([]byte, 100), 0o644); !errors.Is(err, unix.ENOSPC) {
		t.Errorf("write to a full dir: %v, want ENOSPC", err)
	}
	_, unmounted, err := releaseDisks(d)
	if err != nil || len(unmounted) != 1 {
		t.Fatalf("release: unmounted %v, %v", unmounted, err)
	}
	if ms, _ := mounts(d); len(ms) != 0 {
		t.Errorf("mounts left: %v", ms)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/plain`: "/plain", `/x\134y`: `/x\y`} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCgroupBlkio(t *testing.T) {
	v1 := "12:cpu,cpuacct:/docker/abc\n7:blkio:/docker/abc\n0::/system.slice\n"
	if got, err := cgroupBlkio(v1); err != nil || got != "/sys/fs/cgroup/blkio/docker/abc" {
		t.Errorf("v1: %q, %v", got, err)
	}
	if _, err := cgroupBlkio("0::/docker/abc\n"); err == nil || !strings.Contains(err.Error(), "cgroup v1 only") {
		t.Errorf("v2 only: %v, want a refusal naming cgroup v1", err)
	}
}

// TestBlockDevice: a host folder is on a disk (a partition's disk is
// named); a tmpfs has none to slow down.
func TestBlockDevice(t *testing.T) {
	d := hostDir(t)
	dev, err := blockDevice(d)
	if err != nil {
		t.Skipf("%s: %v", d, err)
	}
	if _, err := os.Stat(filepath.Join("/sys/dev/block", dev, "partition")); err == nil {
		t.Errorf("%s: device %s is a partition, want its disk", d, dev)
	}
	at := filepath.Join(d, "tmp")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mountTmpfs(at, "kchaos-test", 4<<20); err != nil {
		t.Skip(err)
	}
	if _, err := blockDevice(at); err == nil || !strings.Contains(err.Error(), "no block device") {
		t.Errorf("tmpfs: %v, want no block device", err)
	}
}
