package testenv

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// fakeTB records a Fatalf instead of ending the test, so the checks can be
// seen to fail (never skip) when what they need is missing.
type fakeTB struct{ fatal string }

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

// TestDockerUnreachableFails: with DOCKER_HOST pointing nowhere, the check
// fails the test and says how to start an engine or run the unit tests.
func TestDockerUnreachableFails(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	docker.once, docker.err = sync.Once{}, nil
	t.Cleanup(func() { docker.once, docker.err = sync.Once{}, nil })
	var f fakeTB
	Docker(&f)
	for _, want := range []string{"no Docker engine answers", "make docker", "go test ./..."} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("Docker with no engine: fatal %q, want it to contain %q", f.fatal, want)
		}
	}
}

func TestProgram(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{path: self, want: ""},
		{path: "/nonexistent/chromium", want: "/nonexistent/chromium is missing"},
	} {
		var f fakeTB
		Program(&f, tc.path, "chromium")
		if tc.want == "" && f.fatal != "" {
			t.Errorf("Program(%s): fatal %q for a program that exists", tc.path, f.fatal)
		}
		if tc.want != "" && (!strings.Contains(f.fatal, tc.want) || !strings.Contains(f.fatal, "make chromium")) {
			t.Errorf("Program(%s): fatal %q, want %q and the make target", tc.path, f.fatal, tc.want)
		}
	}
}

func TestStoreAndVersion(t *testing.T) {
	for _, tc := range []struct{ store, version string }{{"", ""}, {"/tmp/kchaos-kept", "4.1.2"}} {
		t.Setenv(EnvStore, tc.store)
		t.Setenv(EnvKafkaVersion, tc.version)
		got := Store(t)
		if tc.store != "" && got != tc.store {
			t.Errorf("Store with %s=%q: %q", EnvStore, tc.store, got)
		}
		if tc.store == "" && (got == "" || !strings.HasPrefix(got, os.TempDir())) {
			t.Errorf("Store without %s: %q, want a temporary folder", EnvStore, got)
		}
		if v := KafkaVersion(); v != tc.version {
			t.Errorf("KafkaVersion with %s=%q: %q", EnvKafkaVersion, tc.version, v)
		}
	}
}
