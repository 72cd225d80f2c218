package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LogFiles is one node's Kafka log dir. Paths are slash-separated and
// relative to the log dir ("recovery-point-offset-checkpoint",
// "orders-0/00000000000000000000.log"); "" or "." is the log dir itself.
// An absolute path or one that leaves the log dir is an error, so a fault
// cannot reach beyond the data it is meant to damage. A missing file is an
// error that matches fs.ErrNotExist (errors.Is), from every backend.
type LogFiles interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
	// Truncate cuts (or extends with zeros) a file to size bytes.
	Truncate(ctx context.Context, path string, size int64) error
	// Remove deletes a file or an empty folder.
	Remove(ctx context.Context, path string) error
	// List returns a folder's entries sorted by name.
	List(ctx context.Context, dir string) ([]FileInfo, error)
}

// FileInfo is one entry of a log dir folder.
type FileInfo struct {
	Name string
	Dir  bool
	Size int64
}

// LocalPath checks that p stays inside the log dir and returns it cleaned
// ("." for the log dir itself). Backends call it before touching a path.
func LocalPath(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if strings.Contains(p, `\`) || !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("log dir path %q: want a path inside the log dir", p)
	}
	return filepath.ToSlash(filepath.Clean(p)), nil
}

// LocalDir is a log dir on this machine's file system: the Docker
// backend's view of a node's bind-mounted data folder, and what unit tests
// cut. Every path is checked with LocalPath.
type LocalDir string

var _ LogFiles = LocalDir("")

func (d LocalDir) path(p string) (string, error) {
	rel, err := LocalPath(p)
	if err != nil {
		return "", err
	}
	return filepath.Join(string(d), filepath.FromSlash(rel)), nil
}

func (d LocalDir) ReadFile(_ context.Context, p string) ([]byte, error) {
	full, err := d.path(p)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(full)
}

func (d LocalDir) WriteFile(_ context.Context, p string, data []byte) error {
	full, err := d.path(p)
	if err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

func (d LocalDir) Truncate(_ context.Context, p string, size int64) error {
	full, err := d.path(p)
	if err != nil {
		return err
	}
	return os.Truncate(full, size)
}

func (d LocalDir) Remove(_ context.Context, p string) error {
	full, err := d.path(p)
	if err != nil {
		return err
	}
	if full == filepath.Clean(string(d)) {
		return fmt.Errorf("log dir: refusing to remove the log dir itself")
	}
	return os.Remove(full)
}

func (d LocalDir) List(_ context.Context, dir string) ([]FileInfo, error) {
	full, err := d.path(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil, err
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		fi := FileInfo{Name: e.Name(), Dir: e.IsDir()}
		if info, err := e.Info(); err == nil && !e.IsDir() {
			fi.Size = info.Size()
		} else if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		out = append(out, fi)
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
