package testenv

import (
	"context"
	"errors"
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

// fakeCleanup records cleanups and errors, so TearDown's checks can be run
// and seen to fail.
type fakeCleanup struct {
	cleanups []func()
	errs     []string
}

func (f *fakeCleanup) Helper()           {}
func (f *fakeCleanup) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeCleanup) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

type fakeCluster struct {
	err  error
	down bool
}

func (c *fakeCluster) RunID() string                  { return "run-1" }
func (c *fakeCluster) Teardown(context.Context) error { c.down = true; return c.err }

// TestTearDown: the teardown runs at cleanup, and a failed teardown or a
// container left behind fails the test.
func TestTearDown(t *testing.T) {
	left := func(n int) Labelled {
		return func(_ context.Context, runID string) ([]string, []string, error) {
			if runID != "run-1" {
				return nil, nil, fmt.Errorf("asked for run %q", runID)
			}
			return make([]string, n), nil, nil
		}
	}
	for _, tc := range []struct {
		name     string
		teardown error
		left     Labelled
		want     []string
	}{
		{name: "clean", left: left(0)},
		{name: "no leftover check", left: nil},
		{name: "teardown fails", teardown: errors.New("boom"), left: left(0), want: []string{"teardown of run run-1: boom"}},
		{name: "container left", left: left(2), want: []string{"after teardown 2 containers and 0 networks of run run-1 remain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fakeCleanup
			c := &fakeCluster{err: tc.teardown}
			TearDown(&f, c, tc.left)
			if c.down || len(f.cleanups) != 1 {
				t.Fatalf("teardown ran before cleanup (%v) or %d cleanups registered", c.down, len(f.cleanups))
			}
			f.cleanups[0]()
			if !c.down {
				t.Error("cleanup did not tear the cluster down")
			}
			if strings.Join(f.errs, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("errors %q, want %q", f.errs, tc.want)
			}
		})
	}
}
