package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/cluster"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
	"github.com/kchaos/kchaos/cluster/ssh/sshtest"
	"github.com/kchaos/kchaos/internal/itest"
)

// TestSSHCrashThenClean: `kchaos run` on SSH test hosts is killed with
// SIGKILL while a partition, a paused broker and a killed broker are in
// force; `kchaos clean --hosts FILE` must then leave no kchaos iptables
// rule, no stopped (T) Kafka and no missing Kafka, checked over SSH.
func TestSSHCrashThenClean(t *testing.T) {
	itest.Cluster(t, "Docker and the test host image")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "kchaos")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cfg := cluster.Config{}
	cfg.Defaults()
	h, err := sshtest.Start(ctx, cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	section, err := yaml.Marshal(map[string]any{"cluster": map[string]any{
		"backend": "ssh", "hosts": h.Spec.Hosts, "ssh": h.Spec.SSH, "service": h.Spec.Service,
		"confirm_owner": true, "state_dir": h.Spec.StateDir, "elr": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	scen := string(section) + `name: ssh-crash
topic:
  name: orders
  assignment: [[0, 1, 2]]
  configs: {min.insync.replicas: "1"}
workload: {producers: 2, consumers: 1, duration: 120s}
nemesis:
  steps:
    - wait: 3s
    - fault: partition
      shape: leader-followers
      target: {role: leader, partition: 0}
    - fault: pause
      target: {role: nodes, nodes: [2]}
    - fault: kill
      target: {role: nodes, nodes: [1]}
    - wait: 120s
`
	file := filepath.Join(t.TempDir(), "hosts.yaml")
	if err := os.WriteFile(file, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "run", file, "--no-screenshot", "--store", t.TempDir())
	logf, _ := os.Create(filepath.Join(t.TempDir(), "run.log"))
	run.Stdout, run.Stderr = logf, logf
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	statePath := sshb.StatePath(&h.Spec)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st, err := sshb.ReadState(statePath)
		if err == nil && st.Nodes[1] != nil && st.Nodes[1].Down && st.Nodes[2] != nil && st.Nodes[2].Paused && st.Nodes[0] != nil && st.Nodes[0].Rules {
			break
		}
		if time.Now().After(deadline) {
			run.Process.Kill()
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("the faults never all showed in the state file %s (%+v, %v); run log:\n%s", statePath, st, err, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second) // the kill has landed
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = run.Wait()
	t.Logf("kchaos killed with SIGKILL mid-nemesis; state file %s", statePath)
	// What the crash left, as proof that clean has something to do.
	if left := hostFaults(t, ctx, h); len(left) == 0 {
		b, _ := os.ReadFile(logf.Name())
		t.Fatalf("the crash left nothing on the hosts: the test proves nothing; run log:\n%s", b)
	} else {
		t.Logf("left by the crash: %v", left)
	}
	begin := time.Now()
	out, err := exec.Command(bin, "clean", "--hosts", file).CombinedOutput()
	t.Logf("kchaos clean --hosts (%s):\n%s", time.Since(begin).Round(100*time.Millisecond), out)
	if err != nil {
		t.Fatalf("clean: %v", err)
	}
	if left := hostFaults(t, ctx, h); len(left) > 0 {
		t.Errorf("after clean: %v", left)
	}
	if _, err := os.Stat(statePath); !os.IsNotExist(err) {
		t.Errorf("state file %s still there after a complete clean (%v)", statePath, err)
	}
}

// hostFaults lists, per host, what a fault left: kchaos iptables rules, a
// stopped Kafka, no Kafka.
func hostFaults(t *testing.T, ctx context.Context, h *sshtest.Hosts) []string {
	t.Helper()
	var left []string
	for _, host := range h.Spec.Hosts {
		rules, err := h.Run(ctx, host.IP, "iptables -w 5 -S | grep -c kchaos; true", nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.TrimSpace(rules); n != "0" {
			left = append(left, host.IP+": "+n+" kchaos rule(s)")
		}
		ps, err := h.Run(ctx, host.IP, "for p in $(pgrep -f '[k]afka.Kafka'); do sed 's/.*) //' /proc/$p/stat | cut -c1; done", nil)
		if err != nil {
			t.Fatal(err)
		}
		switch st := strings.TrimSpace(ps); {
		case st == "":
			left = append(left, host.IP+": no Kafka process")
		case strings.Contains(st, "T"):
			left = append(left, host.IP+": Kafka stopped (T)")
		}
	}
	return left
}
