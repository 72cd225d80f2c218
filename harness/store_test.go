package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
)

// TestUniqueFolders (issue 37): folders are named to the second (a run's
// to the millisecond), so two made at once share a timestamp; each gets a
// folder of its own, the later ones suffixed -2, -3, ... and none
// replaces another's.
func TestUniqueFolders(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(store string) (string, error)
	}{
		{"suite", func(store string) (string, error) { return makeStoreDir(store, "suite name", "seeds", "suite-") }},
		{"explore", func(store string) (string, error) { return MakeStoreDir(store, "scenario name", "s1", "explore-") }},
		{"audit", func(store string) (string, error) { return makeStoreDir(store, "", "", "audit") }},
		{"run", func(store string) (string, error) { return newRunDir(store, "s1") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := t.TempDir()
			const n = 8
			dirs := make([]string, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() { defer wg.Done(); dirs[i], errs[i] = tc.make(store) }()
			}
			wg.Wait()
			seen := map[string]bool{}
			for i, d := range dirs {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if seen[d] {
					t.Errorf("folder %s made twice", d)
				}
				seen[d] = true
				if st, err := os.Stat(d); err != nil || !st.IsDir() {
					t.Errorf("%s: %v", d, err)
				}
			}
		})
	}
}

// TestMakeUniqueSuffixes: a taken name gets -2, then -3; the first keeps
// what it holds.
func TestMakeUniqueSuffixes(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "suite-x")
	var got []string
	for range 3 {
		d, err := makeUnique(parent, "20260101T120000Z")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(d))
	}
	if want := "20260101T120000Z 20260101T120000Z-2 20260101T120000Z-3"; strings.Join(got, " ") != want {
		t.Errorf("folders %v, want %s", got, want)
	}
	// A store that is a file: bad input naming --store.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := makeUnique(filepath.Join(file, "suite-x"), "20260101T120000Z")
	var bad *scenario.BadInputError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "--store") {
		t.Errorf("store through a file: %v, want bad input naming --store", err)
	}
}

// TestCheckOutputDir: a folder flag kchaos could not make or write is
// refused naming the flag, before anything is made.
func TestCheckOutputDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string // want "" for accepted
	}{
		{"existing folder", dir, ""},
		{"new folder under one", filepath.Join(dir, "a", "b"), ""},
		{"blank", " ", `--store " ": want a folder`},
		{"a file", file, "a file, not a folder"},
		{"under a file", filepath.Join(file, "x"), "not a directory"},
		{"under a file, deeper", filepath.Join(file, "x", "y"), "not a directory"},
		{"through a file", file + "/..", "not a directory"},
	} {
		err := CheckOutputDir("--store", tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--store")):
			t.Errorf("%s: %v, want %q naming --store", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("CheckOutputDir made a folder")
	}
}
