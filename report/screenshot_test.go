//go:build integration

package report

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/internal/testenv"
)

// TestScreenshotInChromium renders the report in Debian's headless
// Chromium with networking off: the page must lay out into a picture with
// content. A blank page must be caught, or the check would prove nothing.
func TestScreenshotInChromium(t *testing.T) {
	testenv.Program(t, chromiumPath, "chromium")
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		wantErr string
	}{
		{"report", func(t *testing.T, dir string) {
			s2Run(t, dir, true)
			if err := Write(dir); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"blank page", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ReportHTML), []byte("<!DOCTYPE html><html><body></body></html>"), 0o644)
		}, "looks blank"},
		{"no page", func(t *testing.T, dir string) {}, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			err := Screenshot(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Screenshot: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(dir, screenshotPNG))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 2000 {
				t.Errorf("screenshot is %dx%d, want 1400x2000", b.Dx(), b.Dy())
			}
			if v := imageVariance(img); v < minVariance {
				t.Errorf("screenshot pixel variance %.1f: blank", v)
			}
		})
	}
}
