package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/internal/itest"
)

// A small story: the leader is paused during a long workload, so an
// interrupt lands with a fault in place that the final heal must undo.
const interruptScenario = `name: interrupt
cluster: {brokers: 3, elr: "off"}
topic:
  name: orders
  assignment: [[0, 1, 2]]
  configs: {min.insync.replicas: "1"}
workload: {producers: 2, consumers: 1, duration: 120s}
nemesis:
  steps:
    - wait: 2s
    - fault: pause
      target: {role: leader, partition: 0}
    - wait: 120s
final: {recover_timeout: 60s, read_timeout: 20s}
`

// TestInterrupt (issue 17): `kchaos run` with stdout and stderr on a pipe
// whose reader exits, then SIGINT (or SIGTERM) during the workload. The
// process must survive its writes to the dead pipe, heal, tear down and
// check: no container or network with the run's label remains, it exits
// within the teardown bound, and results.json says "interrupted".
func TestInterrupt(t *testing.T) {
	version := itest.Cluster(t, "")
	bin := filepath.Join(t.TempDir(), "kchaos")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	file := filepath.Join(t.TempDir(), "interrupt.yaml")
	if err := os.WriteFile(file, []byte(interruptScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { interruptRun(t, bin, file, version, sig) })
	}
}

var runIDRE = regexp.MustCompile(`\(run ([0-9T]+-[0-9a-f]+)\)`)

func interruptRun(t *testing.T, bin, file, version string, sig syscall.Signal) {
	store := t.TempDir()
	args := []string{"run", file, "--store", store, "--no-screenshot"}
	if version != "" {
		args = append(args, "--kafka", version)
	}
	cmd := exec.Command(bin, args...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()

	// Read like tee until the workload is under way and the fault is in,
	// then exit as tee does at Ctrl-C: kchaos's later writes hit a dead pipe.
	var runID string
	seen := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		workload, fault := false, false
		for sc.Scan() {
			line := sc.Text()
			t.Log("kchaos: " + line)
			if m := runIDRE.FindStringSubmatch(line); m != nil && runID == "" {
				runID = m[1]
			}
			workload = workload || strings.Contains(line, "ops/s")
			fault = fault || strings.Contains(line, "nemesis step 3 of 3")
			if workload && fault {
				break
			}
		}
		r.Close()
		close(seen)
	}()
	select {
	case <-seen:
	case err := <-exited:
		t.Fatalf("kchaos exited before the workload: %v", err)
	case <-time.After(4 * time.Minute):
		t.Fatal("no workload progress within 4 minutes")
	}
	if runID == "" {
		t.Fatal("no run id in the output")
	}
	time.Sleep(time.Second) // a little history under the fault
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	select {
	case err := <-exited:
		took := time.Since(begin)
		t.Logf("%s: exited after %.1f s: %v", sig, took.Seconds(), err)
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v (a dead pipe or the signal), not an orderly exit", ws.Signal())
		}
		if code := cmd.ProcessState.ExitCode(); code != exitUnknown {
			t.Errorf("exit %d, want %d (unknown: interrupted)", code, exitUnknown)
		}
	case <-time.After(harness.TeardownTimeout):
		t.Fatalf("%s: still running %s after the signal", sig, harness.TeardownTimeout)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctrs, nets, err := docker.Labelled(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ctrs)+len(nets) > 0 {
		t.Errorf("run %s left %d containers and %d networks", runID, len(ctrs), len(nets))
		_, _ = docker.Clean(ctx, "")
	}

	dirs, _ := filepath.Glob(filepath.Join(store, "interrupt", "*"))
	if len(dirs) != 1 {
		t.Fatalf("run folders %v, want one", dirs)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], checker.ResultsFile))
	if err != nil {
		t.Fatalf("no results.json: %v", err)
	}
	var res checker.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.Unknown || len(res.Reasons) == 0 || !strings.HasPrefix(res.Reasons[0], "interrupted at workload") {
		t.Errorf("results.json: valid %s, reasons %q; want unknown, \"interrupted at workload ...\"", res.Valid, res.Reasons)
	}
	if !strings.Contains(res.Reasons[0], sigName(sig)) {
		t.Errorf("reason %q does not name %s", res.Reasons[0], sigName(sig))
	}
	for _, f := range []string{"report.md", "report.html", "history.jsonl", "logs/broker-0.log"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Errorf("run folder lacks %s", f)
		}
	}
}

func sigName(s syscall.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}
