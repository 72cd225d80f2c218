package histories

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/kchaos/kchaos/internal/owned"
)

// errNotRegular is what OpenRegular and ReadRegular refuse: a path that is
// not a regular file (a FIFO, a device, a socket, a folder).
var errNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading when it is a regular file, and
// refuses anything else with ErrNotRegular: a FIFO would block its reader
// until a writer comes (forever, in a run folder nobody writes), a device
// would be read without end. The open itself never blocks (O_NONBLOCK;
// a regular file reads as usual), and the check is of the file opened,
// by its descriptor, not of the name a moment before. Every file kchaos
// reads back from a folder (a history, run.json, results.json, a suite's
// or an exploration's record) is opened here.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", errNotRegular, owned.Kind(st.Mode()))}
	}
	return f, nil
}

// ReadRegular is os.ReadFile of a regular file only (OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
