package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// remoteFiles is a node's Kafka log dir on its host, over SSH commands.
// It works while Kafka is killed or stopped: the host still answers.
type remoteFiles struct {
	c   *Cluster
	id  int32
	dir string
}

var _ cluster.LogFiles = remoteFiles{}

// notExist is the exit code the file commands use for a missing path.
const notExist = 44

func (f remoteFiles) path(p string) (string, error) {
	rel, err := cluster.LocalPath(p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return f.dir, nil
	}
	return path.Join(f.dir, rel), nil
}

func (f remoteFiles) run(ctx context.Context, p, script string, stdin []byte) ([]byte, error) {
	a, err := f.c.host(f.id)
	if err != nil {
		return nil, err
	}
	var in io.Reader // a nil []byte sends no stdin at all
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	out, _, err := f.c.d.run(ctx, a, script, in)
	var ee *exitError
	if errors.As(err, &ee) && ee.Code == notExist {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return out, err
}

// existsOr44 fails with notExist when q (quoted) is missing.
func existsOr44(q string) string {
	return "[ -e " + q + " ] || [ -L " + q + " ] || exit " + strconv.Itoa(notExist) + "; "
}

func (f remoteFiles) ReadFile(ctx context.Context, p string) ([]byte, error) {
	full, err := f.path(p)
	if err != nil {
		return nil, err
	}
	return f.run(ctx, full, existsOr44(quote(full))+"cat "+quote(full), nil)
}

func (f remoteFiles) WriteFile(ctx context.Context, p string, data []byte) error {
	full, err := f.path(p)
	if err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	_, err = f.run(ctx, full, "cat > "+quote(full), data)
	return err
}

func (f remoteFiles) Truncate(ctx context.Context, p string, size int64) error {
	full, err := f.path(p)
	if err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("truncate %s: negative size %d", p, size)
	}
	_, err = f.run(ctx, full, existsOr44(quote(full))+"truncate -s "+strconv.FormatInt(size, 10)+" "+quote(full), nil)
	return err
}

func (f remoteFiles) Remove(ctx context.Context, p string) error {
	full, err := f.path(p)
	if err != nil {
		return err
	}
	if full == f.dir {
		return fmt.Errorf("log dir: refusing to remove the log dir itself")
	}
	q := quote(full)
	_, err = f.run(ctx, full, existsOr44(q)+"if [ -d "+q+" ] && [ ! -L "+q+" ]; then rmdir "+q+"; else rm -f "+q+"; fi", nil)
	return err
}

func (f remoteFiles) List(ctx context.Context, dir string) ([]cluster.FileInfo, error) {
	full, err := f.path(dir)
	if err != nil {
		return nil, err
	}
	q := quote(full)
	out, err := f.run(ctx, full, "[ -d "+q+" ] || exit "+strconv.Itoa(notExist)+"; find "+q+
		` -mindepth 1 -maxdepth 1 -printf '%f\t%y\t%s\n'`, nil)
	if err != nil {
		return nil, err
	}
	return parseList(string(out))
}

// parseList reads find's "name<TAB>type<TAB>size" lines, sorted by name.
func parseList(out string) ([]cluster.FileInfo, error) {
	var infos []cluster.FileInfo
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("list: unexpected line %q", line)
		}
		fi := cluster.FileInfo{Name: parts[0], Dir: parts[1] == "d"}
		if !fi.Dir {
			n, err := strconv.ParseInt(parts[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("list: size in %q: %w", line, err)
			}
			fi.Size = n
		}
		infos = append(infos, fi)
	}
	slices.SortFunc(infos, func(a, b cluster.FileInfo) int { return strings.Compare(a.Name, b.Name) })
	return infos, nil
}
