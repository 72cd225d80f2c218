package cluster

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"": ".", ".": ".", "a": "a", "orders-0/0.log": "orders-0/0.log", "a/./b/../c": "a/c",
	} {
		if got, err := LocalPath(in); err != nil || got != want {
			t.Errorf("LocalPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"/etc/passwd", "..", "../x", "a/../../x", `a\..\..\x`} {
		if got, err := LocalPath(bad); err == nil {
			t.Errorf("LocalPath(%q) = %q, want an error: it leaves the log dir", bad, got)
		}
	}
}

// TestLocalDir: the file operations the power-loss fault uses, confined
// to the folder, with a missing file reported as fs.ErrNotExist.
func TestLocalDir(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d := LocalDir(filepath.Join(root, "data"))
	if err := os.MkdirAll(filepath.Join(string(d), "t-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "outside"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile(ctx, "t-0/0.log", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if err := d.Truncate(ctx, "t-0/0.log", 4); err != nil {
		t.Fatal(err)
	}
	if b, err := d.ReadFile(ctx, "t-0/0.log"); err != nil || string(b) != "0123" {
		t.Errorf("after truncate: %q %v", b, err)
	}
	if err := d.WriteFile(ctx, "marker", nil); err != nil {
		t.Fatal(err)
	}
	list, err := d.List(ctx, "")
	if err != nil || len(list) != 2 || list[0] != (FileInfo{Name: "marker"}) || list[1] != (FileInfo{Name: "t-0", Dir: true}) {
		t.Errorf("List = %+v %v", list, err)
	}
	if list, err := d.List(ctx, "t-0"); err != nil || len(list) != 1 || list[0].Size != 4 {
		t.Errorf("List t-0 = %+v %v", list, err)
	}
	if err := d.Remove(ctx, "marker"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadFile(ctx, "marker"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of a removed file: %v, want fs.ErrNotExist", err)
	}
	if err := d.Remove(ctx, "marker"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second remove: %v, want fs.ErrNotExist", err)
	}
	if _, err := d.ReadFile(ctx, "../outside"); err == nil {
		t.Error("read outside the log dir allowed")
	}
	if err := d.Remove(ctx, "."); err == nil {
		t.Error("removing the log dir itself allowed")
	}
}
