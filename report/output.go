package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// kchaos writes only what it owns. Every page, record and report it
// writes goes through WriteOutput: the file is written whole to a
// temporary file in the same folder and renamed over its name, so a reader
// never sees half of it and nothing is written through a symbolic link; a
// name that exists and is not a regular file (a symbolic link, a folder, a
// FIFO, a device) is refused with an *OutputError, and a command that
// writes several outputs checks them all first (CheckOutputs), so that it
// refuses before it writes any.

// OutputError is an output path kchaos will not write: it exists and is
// not a regular file. Commands report it as bad input (exit 254).
type OutputError struct {
	Path string
	Kind string // "a symbolic link", "a folder", ...
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: kchaos writes only its own files and will not write through or over it (remove it, or work on a copy)", e.Path, e.Kind)
}

// CheckOutput is nil when path is absent or a regular file, else an
// *OutputError (or the error Lstat gave, e.g. a component that is not a
// folder).
func CheckOutput(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode().IsRegular():
		return nil
	}
	return &OutputError{Path: path, Kind: modeKind(st.Mode())}
}

// CheckOutputs is CheckOutput of each name in dir, every problem joined.
func CheckOutputs(dir string, names ...string) error {
	var errs []error
	for _, n := range names {
		errs = append(errs, CheckOutput(filepath.Join(dir, n)))
	}
	return errors.Join(errs...)
}

// WriteOutput writes data to path (mode 0644) through a temporary file in
// the same folder renamed over it, refusing a path that is not a regular
// file (CheckOutput). The rename replaces the name, never what a link
// there points at.
func WriteOutput(path string, data []byte) error {
	if err := CheckOutput(path); err != nil {
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

// RunOutputs are the files a report of a run folder writes (Write), with
// the porcupine visualizations already in the folder, which a check
// rewrites: what `kchaos check` of a run folder must be free to write.
func RunOutputs(dir string) []string {
	out := []string{ReportMD, ReportHTML, JUnitFile}
	return append(out, existing(dir, "", ".porcupine.html")...)
}

// CheckOutputsOf checks every output `kchaos check PATH` would write
// besides its results file (which the checker checks): for a run folder
// (or its history.jsonl) the report's files and the porcupine pages; for
// a history file of another name the porcupine pages named after it.
// Nil when all can be written.
func CheckOutputsOf(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // the checker names a path it cannot read
	}
	if st.IsDir() {
		return CheckOutputs(path, RunOutputs(path)...)
	}
	dir, base := filepath.Split(path)
	if base == HistoryFile {
		return CheckOutputs(dir, RunOutputs(dir)...)
	}
	prefix := strings.TrimSuffix(base, filepath.Ext(base)) + "."
	return CheckOutputs(dir, existing(dir, prefix, ".porcupine.html")...)
}

// existing lists the entries of dir named prefix*suffix.
func existing(dir, prefix, suffix string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) {
			out = append(out, n)
		}
	}
	return out
}

// modeKind names a file mode's type in words.
func modeKind(m fs.FileMode) string {
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
