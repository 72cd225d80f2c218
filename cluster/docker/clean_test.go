package docker

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCleanDataOnlyMarked (issue 37): clean removes only the data folders
// kchaos made (MakeDataDir's marker); a folder without the marker, a
// file, and a link to a marked folder are left, and named.
func TestCleanDataOnlyMarked(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"run-a", "run-b"} {
		dir, err := makeDataDir(root, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "broker-0", "data"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mine := filepath.Join(root, "Documents")
	if err := os.MkdirAll(filepath.Join(mine, "thesis"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".bashrc"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A marked folder elsewhere, reached by a link: not followed.
	elsewhere, err := makeDataDir(t.TempDir(), "run-c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	// A folder whose marker is a folder is not marked.
	fake := filepath.Join(root, "fake")
	if err := os.MkdirAll(filepath.Join(fake, DataMarker), 0o755); err != nil {
		t.Fatal(err)
	}
	removed, left, err := cleanData(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"run-a", "run-b"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	if want := []string{".bashrc", "Documents", "fake", "link"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	for _, p := range []string{filepath.Join(mine, "thesis"), filepath.Join(root, ".bashrc"), filepath.Join(elsewhere, DataMarker), fake} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v (clean removed what kchaos did not make)", p, err)
		}
	}
	// A root that does not exist: nothing to do.
	if r, l, err := cleanData(filepath.Join(root, "none")); err != nil || len(r)+len(l) > 0 {
		t.Errorf("missing root: %v %v %v", r, l, err)
	}
}
