package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/owned"
)

// DefaultStore is where runs are kept: store/<scenario>/<timestamp>/.
const DefaultStore = "store"

// storeDir is store/<folder>/ (store defaulted) and the timestamp a new
// folder there is named after, for a folder made from a name a user chose
// (a scenario's, a suite's): the name is checked by scenario.CheckName,
// and the result must lie inside the store, so that no name can make
// kchaos write elsewhere. stampFormat is the timestamp's layout.
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

// maxSuffix bounds the suffixes MakeUnique tries (stamp-2 ... stamp-N).
const maxSuffix = 1000

// makeUnique makes a new folder parent/stamp (parent made as needed) and
// returns its path: the folder is created with os.Mkdir, which fails when
// the name exists, so that two kchaos started in the same second (two
// shards into one store) never write one folder; a name taken gets a
// suffix, stamp-2, stamp-3, ... A store that cannot be made (a file in
// the way, no permission) is bad input naming --store.
func makeUnique(parent, stamp string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", storeError(err)
	}
	for n := 1; n <= maxSuffix; n++ {
		name := stamp
		if n > 1 {
			name = fmt.Sprintf("%s-%d", stamp, n)
		}
		dir := filepath.Join(parent, name)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", storeError(err)
		}
	}
	return "", fmt.Errorf("store: %s: %d folders named %s already", parent, maxSuffix, stamp)
}

// storeError is a store folder that cannot be made: bad input, naming the
// flag that chose it.
func storeError(err error) error {
	return &scenario.BadInputError{Err: fmt.Errorf("--store: %w", err)}
}

// CheckOutputDir refuses, before anything starts, a folder flag (--store,
// --out, --logs) whose folder kchaos could not make or write: blank, a
// path through a file ("file/.."), a file, or a folder this user cannot
// write (or whose nearest existing parent it cannot). Nothing is created.
// The error names the flag.
func CheckOutputDir(flag, path string) error {
	bad := func(format string, args ...any) error {
		return &scenario.BadInputError{Err: fmt.Errorf("%s %q: "+format, append([]any{flag, path}, args...)...)}
	}
	if strings.TrimSpace(path) == "" {
		return bad("want a folder (leave the flag out for its default)")
	}
	p := path
	for {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && filepath.Dir(p) != p:
			p = filepath.Dir(p)
			continue
		case err != nil:
			return bad("%v", err)
		case !st.IsDir():
			if p == path {
				return bad("a file, not a folder")
			}
			return bad("%s is a file, not a folder", p)
		case unix.Access(p, unix.W_OK|unix.X_OK) != nil:
			return bad("%s: this user cannot write there", p)
		}
		return nil
	}
}

// newRunDir makes store/<name>/<timestamp>/ and points store/latest at it.
func newRunDir(store, name string) (string, error) {
	store, rel, err := storeDir(store, "name", name, "", "20060102T150405.000Z")
	if err != nil {
		return "", err
	}
	dir, err := makeUnique(filepath.Join(store, filepath.Dir(rel)), filepath.Base(rel))
	if err != nil {
		return "", err
	}
	if rel, err = filepath.Rel(store, dir); err != nil {
		return dir, nil
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
	return owned.Write(path, append(b, '\n'))
}

// MakeStoreDir is makeStoreDir for the commands built on runs outside
// this package (explore, bisect): one rule for where a batch's folder is.
func MakeStoreDir(store, what, name, prefix string) (string, error) {
	return makeStoreDir(store, what, name, prefix)
}

// makeStoreDir makes store/<prefix><name>/<timestamp>/ for a suite, a
// matrix or an audit (storeDir's checks; a new folder, MakeUnique); with
// no what, no user's name is part of the path: store/<prefix>/<timestamp>/
// (an audit's, a folder of the store's own that scenario.CheckName keeps
// scenarios out of).
func makeStoreDir(store, what, name, prefix string) (string, error) {
	stamp := "20060102T150405Z"
	if what == "" {
		if store == "" {
			store = DefaultStore
		}
		return makeUnique(filepath.Join(store, prefix), time.Now().UTC().Format(stamp))
	}
	store, rel, err := storeDir(store, what, name, prefix, stamp)
	if err != nil {
		return "", err
	}
	return makeUnique(filepath.Join(store, filepath.Dir(rel)), filepath.Base(rel))
}

// prepareRun picks s's seed and makes its run folder under store with
// scenario.yaml (and overrides.json, the user's keys kchaos replaced).
// The folder is "" when it could not be made. It takes the two values it
// needs, not a run's Options, so that the store stays below the run.
func prepareRun(s *scenario.Scenario, store string, overridden []string) (string, error) {
	s.SetSeed(time.Now().UnixNano() & (1<<53 - 1))
	dir, err := newRunDir(store, s.Name)
	if err != nil {
		return "", err
	}
	if b, err := s.Marshal(); err == nil {
		err = owned.Write(filepath.Join(dir, "scenario.yaml"), b)
		if err != nil {
			return dir, err
		}
	}
	if len(overridden) > 0 {
		if err := writeJSON(filepath.Join(dir, "overrides.json"), overridden); err != nil {
			return dir, err
		}
	}
	return dir, nil
}
