// Package owned writes the files kchaos owns and nothing else: every page,
// record and report kchaos writes goes through Write: the file is written whole to a
// temporary file in the same folder and renamed over its name, so a reader
// never sees half of it and nothing is written through a symbolic link; a
// name that exists and is not a regular file (a symbolic link, a folder, a
// FIFO, a device) is refused with an *Error, and a command that
// writes several outputs checks them all first (CheckAll), so that it
// refuses before it writes any.
//
// It sits under internal so that every layer (histories' run.json, the
// checker's results and porcupine pages, the report, the harness's
// records) writes through the one rule.
package owned

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Error is an output path kchaos will not write: it exists and is
// not a regular file. Commands report it as bad input (exit 254).
type Error struct {
	Path string
	Kind string // "a symbolic link", "a folder", ...
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: kchaos writes only its own files and will not write through or over it (remove it, or work on a copy)", e.Path, e.Kind)
}

// Check is nil when path is absent or a regular file, else an
// *Error (or the error Lstat gave, e.g. a component that is not a
// folder).
func Check(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode().IsRegular():
		return nil
	}
	return &Error{Path: path, Kind: Kind(st.Mode())}
}

// CheckAll is Check of each name in dir, every problem joined.
func CheckAll(dir string, names ...string) error {
	var errs []error
	for _, n := range names {
		errs = append(errs, Check(filepath.Join(dir, n)))
	}
	return errors.Join(errs...)
}

// Write writes data to path (mode 0644) through a temporary file in
// the same folder renamed over it, refusing a path that is not a regular
// file (Check). The rename replaces the name, never what a link
// there points at.
func Write(path string, data []byte) error {
	if err := Check(path); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Chmod(0o644), tmp.Close())
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		_ = os.Remove(name)
		return err
	}
	return nil
}

// Kind names a file mode's type in words ("a symbolic link", "a FIFO",
// ...), as kchaos's refusals of a path that is not a regular file say it.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
