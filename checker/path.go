package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/owned"
)

// File names in a run folder.
const (
	HistoryFile = "history.jsonl"
	ResultsFile = "results.json"
)

// ErrInput marks the errors of CheckPath that are the input's fault (a
// missing history, a malformed line, a bad run.json): exit 254, not 255.
var ErrInput = errors.New("bad input")

type inputError struct{ err error }

func (e *inputError) Error() string        { return e.err.Error() }
func (e *inputError) Unwrap() error        { return e.err }
func (e *inputError) Is(target error) bool { return target == ErrInput }

func badInput(err error) error { return &inputError{err} }

// CheckPath checks a run folder (holding history.jsonl and perhaps
// run.json) or a history file, and writes the results beside the history:
// results.json (NAME.results.json for a history not named history.jsonl)
// and porcupine's visualizations. The producer's idempotence comes from
// run.json beside the history when there is one, else from opts. The
// harness calls this after a run; `kchaos check` is a thin shell over it.
func CheckPath(path string, opts Options) (*Result, string, error) {
	hist, err := locate(path)
	if err != nil {
		return nil, "", badInput(err)
	}
	dir := filepath.Dir(hist)
	if err := writable(resultsPath(hist)); err != nil {
		return nil, "", badInput(err)
	}
	ri, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile))
	switch {
	case err == nil:
		opts.Idempotent = ri.Producer.Idempotent
		opts.Topic, opts.Partitions = ri.Topic, ri.Partitions
		opts.ExactlyOnce = ri.Group != nil && ri.Group.Delivery == histories.ExactlyOnce
		opts.TxnTimeout = time.Duration(ri.Producer.TransactionTimeoutMS) * time.Millisecond
		opts.TopicConfigs = ri.TopicConfigs
		opts.ControllerConfigs = ri.ControllerConfigs
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", badInput(fmt.Errorf("run.json: %w", err))
	}
	f, err := os.Open(hist)
	if err != nil {
		return nil, "", badInput(err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		opts.sizeHint = st.Size()
	}
	if opts.VisualizeDir == "" {
		opts.VisualizeDir = dir
	}
	if base := filepath.Base(hist); base != HistoryFile {
		opts.prefix = strings.TrimSuffix(base, filepath.Ext(base)) + "."
	}
	res, err := checkReader(f, opts)
	var le *histories.LineError
	switch {
	case errors.As(err, &le):
		return nil, "", badInput(fmt.Errorf("%s: %w", hist, err))
	case err != nil:
		return nil, "", fmt.Errorf("%s: %w", hist, err)
	}
	out := resultsPath(hist)
	if err := WriteResults(out, res); err != nil {
		return nil, "", err
	}
	return res, out, nil
}

// locate finds the history of a run folder or checks a history file.
func locate(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		path = filepath.Join(path, HistoryFile)
		if st, err = os.Stat(path); err != nil {
			return "", fmt.Errorf("not a run folder: %w", err)
		}
	}
	// A device or a FIFO would be read forever (or as nothing) and the
	// results written into /dev: only a regular file is a history.
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file (want a run folder or a history .jsonl file)", path)
	}
	return path, nil
}

// writable refuses a results path that exists and is not a regular file
// (owned.Check, the rule every output follows) or not one this user may
// write (its write bit set): the results replace it by a
// rename, which would otherwise replace a read-only file silently.
func writable(path string) error {
	if err := owned.Check(path); err != nil {
		return err
	}
	if st, err := os.Lstat(path); err == nil && st.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s is read-only: kchaos will not replace it (make it writable, or check a copy)", path)
	}
	return nil
}

// resultsPath is where CheckPath writes the results of a history.
func resultsPath(history string) string {
	base := filepath.Base(history)
	if base == HistoryFile {
		return filepath.Join(filepath.Dir(history), ResultsFile)
	}
	return filepath.Join(filepath.Dir(history), strings.TrimSuffix(base, filepath.Ext(base))+"."+ResultsFile)
}

// WriteResults writes r as indented JSON, atomically (a reader never sees
// half a file) and never through a link (internal/owned).
func WriteResults(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return owned.Write(path, append(b, '\n'))
}
