package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
)

// TestNewcomerFindsTheFormat (issue 28, item 6): scenarios NAME prints a
// built-in's YAML that validates as a file of one's own; scenarios prints
// each description whole; validate prints what would run and starts
// nothing; completion offers built-in names; help lists the exit codes.
func TestNewcomerFindsTheFormat(t *testing.T) {
	code, yml, started, _ := guardCLI(t, "scenarios", "s2")
	if code != exitValid || !strings.HasPrefix(yml, "name: s2\n") || started {
		t.Fatalf("scenarios s2: exit %d, started %v:\n%s", code, started, yml)
	}
	mine := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(mine, []byte(strings.Replace(yml, "name: s2", "name: mine", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"validate the copy", []string{"validate", mine, "--set", "workload.acks=1"}, exitValid, []string{"valid scenario mine; it would run as:", "acks: \"1\"", "brokers: 3"}},
		{"validate a built-in suite", []string{"validate", "seeds", "--kafka", "4.4.0"}, exitValid, []string{"valid suite seeds", "s1/-/4.4.0"}},
		{"validate refuses a bad --set", []string{"validate", mine, "--set", "workload.duration=876000h"}, exitBadInput, []string{"workload.duration"}},
		{"validate refuses a bad --broker-config", []string{"validate", "s1", "--broker-config", filepath.Join(t.TempDir(), "none")}, exitBadInput, []string{"--broker-config"}},
		{"scenarios: whole descriptions", []string{"scenarios"}, exitValid, []string{"is {0}; sends are acked by broker 0 alone"}},
		{"scenarios: not a built-in", []string{"scenarios", "nope"}, exitBadInput, []string{`"nope": not a built-in scenario`}},
		{"completion script", []string{"completion", "bash"}, exitValid, []string{"__start_kchaos"}},
		{"completion of scenario names", []string{"__complete", "run", "s1"}, exitValid, []string{"s1\n", "s10\n"}},
		{"completion of suite names", []string{"__complete", "suite", ""}, exitValid, []string{"seeds\n", "groups\n"}},
		{"help lists exit codes", []string{"help"}, exitValid, []string{"254  bad input", "255  internal error", "2  unknown"}},
	} {
		code, out, started, stored := guardCLI(t, c.args...)
		if code != c.code || started || len(stored) > 0 {
			t.Errorf("%s: exit %d (want %d), session %v, store %v:\n%s", c.name, code, c.code, started, stored, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, out)
			}
		}
	}
	// Every built-in's printed YAML loads as a file of one's own.
	for _, b := range scenario.Builtins() {
		_, out, _, _ := guardCLI(t, "scenarios", b.Name)
		f := filepath.Join(t.TempDir(), b.Name+".yaml")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := scenario.Load(f, nil); err != nil {
			t.Errorf("scenarios %s does not load back: %v", b.Name, err)
		}
	}
}
