package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs kchaos with args and returns its exit code and output (the
// error message goes to stderr, as in main).
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return execCLI(false, args)
}

// runCLIErr is runCLI with the error message in the output too.
func runCLIErr(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return execCLI(true, args)
}

func execCLI(errInOutput bool, args []string) (int, string) {
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	errTo := io.Writer(os.Stderr)
	if errInOutput {
		errTo = &out
	}
	code := exitCodeTo(errTo, root.Execute())
	return code, out.String()
}

func testdataCopy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "histories", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckExitCodes: 0 valid, 1 invalid, 2 unknown, 254 bad input, 255
// internal error; the summary names the verdict and the explained ranges.
func TestCheckExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"index\":0,\"time\":0,\"process\":0,\"type\":\"ok\",\"f\":\"send\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unwritable := testdataCopy(t, "valid.jsonl")
	if err := os.Mkdir(strings.TrimSuffix(unwritable, ".jsonl")+".results.json", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"valid", []string{"check", testdataCopy(t, "valid.jsonl")}, exitValid, "VALID"},
		{"invalid", []string{"check", testdataCopy(t, "unclean-election.jsonl")}, exitInvalid, "orders-0 offsets 3-4: 2 acked records lost"},
		{"unknown", []string{"check", testdataCopy(t, "unseen.jsonl")}, exitUnknown, "UNKNOWN"},
		{"bad line", []string{"check", bad}, exitBadInput, ""},
		{"missing", []string{"check", filepath.Join(t.TempDir(), "nope")}, exitBadInput, ""},
		{"no path", []string{"check"}, exitBadInput, ""},
		{"bad flag", []string{"check", "--porcupine-timeout", "soon", bad}, exitBadInput, ""},
		// A results path that is a folder is refused before the check,
		// never replaced (issue 28: bad input, not an internal error).
		{"results path is a folder", []string{"check", unwritable}, exitBadInput, ""},
	} {
		code, out := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("%s: exit %d, want %d; output:\n%s", c.name, code, c.code, out)
		}
	}
}

// TestCheckRegeneratesReport: `kchaos check RUN_FOLDER` remakes report.md,
// report.html and junit.xml from the new results, not only results.json.
func TestCheckRegeneratesReport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "histories", "testdata", "real-s1")
	for _, name := range []string{"history.jsonl", "run.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"report.md", "report.html", "junit.xml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("stale"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out := runCLI(t, "check", dir)
	if code != exitValid {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, name := range []string{"report.md", "report.html", "junit.xml"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) == "stale" {
			t.Errorf("%s not regenerated (%v)", name, err)
		}
	}
}

// TestCheckNeverReplacesAReadOnlyResult (issue 28, item 3): a results
// file this user may not write is refused (254) and left as it was,
// never replaced by the rename that writes results.
func TestCheckNeverReplacesAReadOnlyResult(t *testing.T) {
	hist := testdataCopy(t, "valid.jsonl")
	res := strings.TrimSuffix(hist, ".jsonl") + ".results.json"
	if err := os.WriteFile(res, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	code, out := runCLIErr(t, "check", hist)
	if code != exitBadInput || !strings.Contains(out, "is read-only: kchaos will not replace it") {
		t.Errorf("exit %d, want %d:\n%s", code, exitBadInput, out)
	}
	if b, _ := os.ReadFile(res); string(b) != "keep" {
		t.Errorf("the read-only results file was replaced: %q", b)
	}
}
