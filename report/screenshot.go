package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// chromiumPath is the browser Screenshot runs: Debian's chromium package,
// which the Makefile installs (no browser build can be downloaded here).
var chromiumPath = "/usr/bin/chromium"

// screenshotTimeout bounds one headless Chromium run.
var screenshotTimeout = 2 * time.Minute

// errNoChromium is returned by Screenshot when ChromiumPath is missing, so
// that the harness can skip the screenshot instead of failing the run.
var errNoChromium = errors.New("report: chromium not installed")

// Screenshot renders dir/report.html in headless Chromium and keeps the
// picture as dir/report.png. It is the check that the page really renders
// offline: Chromium is started with every background network feature
// off, and a blank picture (a page that failed to lay out) is an error.
func Screenshot(dir string) error {
	if _, err := os.Stat(chromiumPath); err != nil {
		return errNoChromium
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	page := filepath.Join(abs, ReportHTML)
	if _, err := os.Stat(page); err != nil {
		return err
	}
	out := filepath.Join(abs, screenshotPNG)
	_ = os.Remove(out)
	profile, err := os.MkdirTemp("", "kchaos-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)

	ctx, cancel := context.WithTimeout(context.Background(), screenshotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+profile, "--screenshot="+out, "--window-size=1400,2000",
		(&url.URL{Scheme: "file", Path: page}).String())
	// Chromium forks helpers (zygote, renderer): run it in its own process
	// group and kill the whole group on timeout, so none outlives the call.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var outBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stray helpers, if any
	}
	f, err := os.Open(out)
	if err != nil {
		return fmt.Errorf("chromium wrote no screenshot (%v): %s", runErr, tail(outBuf.Bytes(), 2000))
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %v", out, err)
	}
	if v := imageVariance(img); v < minVariance {
		return fmt.Errorf("%s looks blank (pixel variance %.1f)", out, v)
	}
	return nil
}

// minVariance is the least luminance variance of a screenshot with text
// and charts on it; a blank white or single-colour page has about 0.
const minVariance = 20.0

// imageVariance is the variance of the pixels' luminance (0..255),
// sampled on a grid so that a large screenshot costs little.
func imageVariance(img image.Image) float64 {
	b := img.Bounds()
	step := max(1, min(b.Dx(), b.Dy())/400)
	var n, sum, sq float64
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, _ := img.At(x, y).RGBA()
			l := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
			n, sum, sq = n+1, sum+l, sq+l*l
		}
	}
	if n == 0 {
		return 0
	}
	m := sum / n
	return sq/n - m*m
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
