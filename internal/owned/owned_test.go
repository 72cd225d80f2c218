package owned

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteRefuses (issue 37): an output that exists and is not a
// regular file (a link, a folder, a FIFO) is refused, naming it, and
// nothing is written through it; a regular file is replaced whole.
func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.md")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, kind string }{
		{link, "a symbolic link"}, {folder, "a folder"}, {fifo, "a FIFO"},
	} {
		err := Write(tc.path, []byte("new"))
		var oe *Error
		if !errors.As(err, &oe) || oe.Path != tc.path || !strings.Contains(err.Error(), tc.kind) {
			t.Errorf("%s: %v, want an *Error naming it as %s", tc.path, err, tc.kind)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("written through the link: %q", b)
	}
	regular := filepath.Join(dir, "report.md")
	for _, text := range []string{"one", "two"} {
		if err := Write(regular, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(regular); string(b) != text {
			t.Errorf("report.md %q, want %q", b, text)
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(ents) > 0 {
		t.Errorf("temporary files left: %v", ents)
	}
	// Every problem of a set of outputs, before any is written.
	err := CheckAll(dir, "link.md", "report.md", "folder.md")
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), folder) {
		t.Errorf("CheckAll: %v", err)
	}
}
