//go:build integration

package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/kchaos/kchaos/internal/testenv"
)

// TestSuiteGate runs `kchaos suite seeds` on real clusters: s1 matches its
// seed story's expectation (exit 0, one junit testcase per cell), and the
// same suite with min.insync.replicas=1 forced on s4 turns red (exit 1):
// with one in-sync replica enough, the leader cut off from its followers
// accepts every send instead of refusing them with NOT_ENOUGH_REPLICAS.
// (It ran s1, s2 and s4 green until 2026-12-02; s2 and s4 have their own
// scenario tests in make test, and the two extra cells cost two minutes
// of its 45.)
func TestSuiteGate(t *testing.T) {
	testenv.Docker(t)
	version := testenv.KafkaVersion()
	if version == "" {
		version = "latest"
	}
	for _, tc := range []struct {
		name  string
		args  []string
		want  int
		cells int
	}{
		{"seed s1", []string{"--only", "s1"}, 0, 1},
		{"s4 with min.insync 1", []string{"--only", "s4", "--set", "topic.configs.min.insync.replicas=1"}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := t.TempDir()
			args := append([]string{"suite", "seeds", "--kafka", version, "--store", store, "--no-screenshot"}, tc.args...)
			code, out := runCLI(t, args...)
			if code != tc.want {
				t.Fatalf("kchaos %v: exit %d, want %d\n%s", args, code, tc.want, out)
			}
			files, _ := filepath.Glob(filepath.Join(store, "suite-seeds", "*", "junit.xml"))
			if len(files) != 1 {
				t.Fatalf("junit.xml files: %v", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var ju struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Cases    []struct {
					Name string `xml:"name,attr"`
				} `xml:"testcase"`
			}
			if err := xml.Unmarshal(b, &ju); err != nil {
				t.Fatal(err)
			}
			if ju.Tests != tc.cells || len(ju.Cases) != tc.cells {
				t.Errorf("junit: %d tests, %d testcases; want %d", ju.Tests, len(ju.Cases), tc.cells)
			}
			if (ju.Failures > 0) != (tc.want == 1) {
				t.Errorf("junit: %d failures for exit %d", ju.Failures, tc.want)
			}
			t.Logf("%s", out)
		})
	}
}
