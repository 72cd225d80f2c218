package report

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kchaos/kchaos/internal/owned"
)

// TestReportWriteChecksFirst: a run folder whose junit.xml is a link gets
// no report.md either.
func TestReportWriteChecksFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(dir, JUnitFile)); err != nil {
		t.Fatal(err)
	}
	var oe *owned.Error
	if err := Write(dir); !errors.As(err, &oe) {
		t.Fatalf("Write: %v, want an owned.Error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReportMD)); err == nil {
		t.Error("report.md written before the refusal")
	}
}
