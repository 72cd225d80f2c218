package checker

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckPath: a run folder gets results.json beside its history, and
// a visualization of each partition that is not linearizable; a bare
// file gets NAME.results.json; run.json decides idempotence.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(testdataDir, "duplicate.jsonl"), filepath.Join(dir, HistoryFile))
	res, out, err := CheckPath(dir, Options{Idempotent: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != Invalid || !res.Idempotent {
		t.Errorf("no run.json: the option decides; got %v", res.Valid)
	}
	var back map[string]any
	b, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(b, &back) != nil || back["valid"] != false {
		t.Fatalf("%s: %v %s", out, err, b)
	}
	// Linearizable: no visualization (one is written only for a violation).
	if _, err := os.Stat(filepath.Join(dir, visualizationName("orders", 0))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a visualization of a linearizable partition: %v", err)
	}
	if err := histories.WriteRunInfo(filepath.Join(dir, histories.RunInfoFile), histories.RunInfo{}); err != nil {
		t.Fatal(err)
	}
	if res, _, err = CheckPath(filepath.Join(dir, HistoryFile), Options{Idempotent: true}); err != nil || res.Valid != Valid {
		t.Errorf("run.json says not idempotent: got %v, %v", res.Valid, err)
	}

	other := filepath.Join(dir, "other.jsonl")
	copyFile(t, filepath.Join(testdataDir, "lost-write.jsonl"), other)
	if _, out, err = CheckPath(other, Options{}); err != nil || out != filepath.Join(dir, "other.results.json") {
		t.Errorf("bare file: %s, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other."+visualizationName("orders", 0))); err != nil {
		t.Errorf("no prefixed visualization: %v", err)
	}
}

func TestCheckPathBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"index":0,"time":0,"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}`+"\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badRun := filepath.Join(dir, "run")
	if err := os.Mkdir(badRun, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(testdataDir, "valid.jsonl"), filepath.Join(badRun, HistoryFile))
	if err := os.WriteFile(filepath.Join(badRun, histories.RunInfoFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "not a run folder"},
		{bad, "line 2"},
		{badRun, "run.json"},
	} {
		_, _, err := CheckPath(c.path, Options{})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad input mentioning %q", c.path, err, c.want)
		}
	}
}

// TestCheckWritesNoLink (issue 37, item 4): results.json and porcupine's
// page are written as kchaos writes every output (internal/owned): a
// link in their place is refused and what it points at is left as it was.
func TestCheckWritesNoLink(t *testing.T) {
	for _, name := range []string{ResultsFile, visualizationName("orders", 0)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, filepath.Join(testdataDir, "lost-write.jsonl"), filepath.Join(dir, HistoryFile))
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			res, _, err := CheckPath(dir, Options{})
			if name == ResultsFile && !errors.Is(err, ErrInput) {
				t.Errorf("results.json a link: %v, want bad input", err)
			}
			if name != ResultsFile && (err != nil || !strings.Contains(strings.Join(res.Reasons, "\n"), "could not write "+name)) {
				t.Errorf("the page a link: %v, reasons %q; want the page refused and said so", err, res.Reasons)
			}
			if b, _ := os.ReadFile(victim); string(b) != "mine" {
				t.Errorf("written through the link: %q", b)
			}
		})
	}
}
