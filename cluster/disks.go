package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Disks is implemented by backends whose brokers' log dirs the disk faults
// can make unwritable and fill (the Docker backend). Faults type-assert a
// Nodes for it, as for Upgrader; a backend without it cannot fail disks.
// A dir is an index into the broker's log.dirs (LogDirPaths): 0 is the
// first, which also holds the metadata log.
type Disks interface {
	// LogDirs are broker id's log dirs, in log.dirs order.
	LogDirs(id int32) []LogDir
	// DirFiles is one log dir's files (Files is DirFiles(id, 0)). Like
	// Files, it works while the broker is down.
	DirFiles(id int32, dir int) (LogFiles, error)
	// SetImmutable sets (on) or clears the immutable attribute
	// (FS_IMMUTABLE_FL, chattr +i) of the log dir and of every file and
	// folder in it, and returns how many entries it changed. An immutable
	// file refuses every write, also through a descriptor opened before
	// and also to root: Kafka's next append, roll or checkpoint in that dir
	// fails with an IOException.
	SetImmutable(ctx context.Context, id int32, dir int, on bool) (int, error)
	// Fill writes the file name (in the log dir's root) until its file
	// system has no free byte left, and returns the bytes written. Only a
	// bounded dir (LogDir.SizeBytes > 0) may be filled: another shares the
	// host's disk.
	Fill(ctx context.Context, id int32, dir int, name string) (int64, error)
	// Usage is the free and total bytes of the log dir's file system.
	Usage(ctx context.Context, id int32, dir int) (free, total int64, err error)
	// Throttle limits the bytes per second that broker id's own processes
	// read from and write to the block device under log dir dir (the
	// kernel's block I/O throttling of the node's cgroup); 0 removes the
	// limit. It returns the device ("major:minor"). Only I/O the node
	// issues itself is limited: direct I/O, fsync's writeback and reads
	// that miss the page cache; a buffered write returns at memory speed.
	Throttle(ctx context.Context, id int32, dir int, bytesPerSec int64) (string, error)
	// Throttles lists the node's block I/O limits ("read 254:0 65536",
	// "write 254:0 65536"); none for a node that does not run (a node
	// starts without any).
	Throttles(ctx context.Context, id int32) ([]string, error)
}

// LogDir is one of a broker's log dirs.
type LogDir struct {
	// Path is the log.dirs entry, as the broker (and DescribeLogDirs) names it.
	Path string
	// SizeBytes bounds the dir's own file system (Config.LogDirSizeBytes);
	// 0: the dir shares the host's disk.
	SizeBytes int64
}

// maxLogDirs bounds Config.LogDirs: JBOD stories need two or three.
const maxLogDirs = 4

// minLogDirSize is the smallest bounded log dir: room for a partition's
// first segment's pages and its checkpoints before a fill.
const minLogDirSize = 4 << 20

// LogDirPaths are the log.dirs of a broker with n log dirs: DataDir first
// (it also holds the metadata log), then DataDir-1, DataDir-2, ...
func LogDirPaths(n int) []string {
	out := []string{DataDir}
	for i := 1; i < n; i++ {
		out = append(out, DataDir+"-"+strconv.Itoa(i))
	}
	return out
}

// ParseSize reads a byte size: a number with an optional binary unit,
// "64MiB", "512KiB", "1GiB" (also "64M", "64m"), or plain bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mul    int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}}
	mul := int64(1)
	low := strings.ToLower(t)
	for _, u := range units {
		if strings.HasSuffix(low, u.suffix) {
			mul, t = u.mul, strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mul {
		return 0, fmt.Errorf("%q: want a size such as 64MiB, 512KiB or 1GiB", s)
	}
	return n * mul, nil
}

// FormatSize writes a size as ParseSize reads it, in the largest binary
// unit that divides it.
func FormatSize(n int64) string {
	switch {
	case n > 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10)
}
