package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
)

// DefaultStore is where runs are kept: store/<scenario>/<timestamp>/.
const DefaultStore = "store"

// storeDir is store/<folder>/<timestamp>/ (store defaulted), for a
// folder made from a name a user chose (a scenario's, a suite's): the
// name is checked by scenario.CheckName, and the result must lie inside
// the store, so that no name can make kchaos write elsewhere. stampFormat
// is the timestamp's layout.
func storeDir(store, what, name, prefix, stampFormat string) (string, string, error) {
	if store == "" {
		store = DefaultStore
	}
	if err := scenario.CheckName(what, name); err != nil {
		return "", "", &scenario.BadInputError{Err: err}
	}
	rel := filepath.Join(prefix+name, time.Now().UTC().Format(stampFormat))
	if !filepath.IsLocal(rel) {
		return "", "", &scenario.BadInputError{Err: fmt.Errorf("%s %q: not a folder inside the store", what, name)}
	}
	return store, rel, nil
}

// newRunDir makes store/<name>/<timestamp>/ and points store/latest at it.
func newRunDir(store, name string) (string, error) {
	store, rel, err := storeDir(store, "name", name, "", "20060102T150405.000Z")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(store, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	latest := filepath.Join(store, "latest")
	tmp := latest + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err == nil {
		if err := os.Rename(tmp, latest); err != nil {
			_ = os.Remove(tmp)
		}
	}
	return dir, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// MakeStoreDir is makeStoreDir for the commands built on runs outside
// this package (explore, bisect): one rule for where a batch's folder is.
func MakeStoreDir(store, what, name, prefix string) (string, error) {
	return makeStoreDir(store, what, name, prefix)
}

// makeStoreDir makes store/<prefix><name>/<timestamp>/ for a suite, a
// matrix or an audit (storeDir's checks); with no what, no user's name is
// part of the path: store/<prefix>/<timestamp>/ (an audit's, a folder of
// the store's own that scenario.CheckName keeps scenarios out of).
func makeStoreDir(store, what, name, prefix string) (string, error) {
	stamp := "20060102T150405Z"
	if what == "" {
		if store == "" {
			store = DefaultStore
		}
		dir := filepath.Join(store, prefix, time.Now().UTC().Format(stamp))
		return dir, os.MkdirAll(dir, 0o755)
	}
	store, rel, err := storeDir(store, what, name, prefix, stamp)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(store, rel)
	return dir, os.MkdirAll(dir, 0o755)
}

// prepareRun picks s's seed and makes its run folder with scenario.yaml
// (and overrides.json). The folder is "" when it could not be made.
func prepareRun(s *scenario.Scenario, opts Options) (string, error) {
	s.SetSeed(time.Now().UnixNano() & (1<<53 - 1))
	dir, err := newRunDir(opts.Store, s.Name)
	if err != nil {
		return "", err
	}
	if b, err := s.Marshal(); err == nil {
		err = os.WriteFile(filepath.Join(dir, "scenario.yaml"), b, 0o644)
		if err != nil {
			return dir, err
		}
	}
	if len(opts.Overridden) > 0 {
		if err := writeJSON(filepath.Join(dir, "overrides.json"), opts.Overridden); err != nil {
			return dir, err
		}
	}
	return dir, nil
}
