//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestRunPatchReleaseFromMaven (issue 37, item 2): a patch release that
// kchaos's release list did not name until 2026-12-05, 4.3.2, is accepted
// as Kafka spells it; its image is built from Maven Central by the
// project's own route (image/build.sh, what `make image KAFKA_VERSION=4.3.2`
// runs; FORCE=1, so the build itself is exercised, not an image left by an
// earlier run), and `kchaos run s1 --kafka 4.3.2` runs on it: s1 valid, and
// run.json says which release the brokers ran.
func TestRunPatchReleaseFromMaven(t *testing.T) {
	testenv.Docker(t)
	const version = "4.3.2"
	build := exec.Command(filepath.Join("..", "..", "image", "build.sh"), version)
	build.Env = append(os.Environ(), "FORCE=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("image/build.sh %s: %v\n%s", version, err, out)
	} else {
		t.Logf("%s", out)
	}
	store := testenv.Store(t)
	code, out := runCLI(t, "run", "s1", "--kafka", version, "--store", store, "--no-screenshot")
	if code != exitValid {
		t.Fatalf("kchaos run s1 --kafka %s: exit %d, want 0\n%s", version, code, out)
	}
	files, _ := filepath.Glob(filepath.Join(store, "s1", "*", histories.RunInfoFile))
	if len(files) != 1 {
		t.Fatalf("run.json files: %v", files)
	}
	ri, err := histories.ReadRunInfo(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if ri.KafkaVersion != version {
		t.Errorf("run.json kafka_version %q, want %q", ri.KafkaVersion, version)
	}
}
