//go:build integration

package ssh_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/kchaos/kchaos/cluster"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
	"github.com/kchaos/kchaos/cluster/ssh/sshtest"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestSSHBackend drives one test cluster through the SSH backend alone:
// state, pause and resume, kill and start, iptables through Exec, the
// log dir's files, the state file, and Clean.
func TestSSHBackend(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cfg := cluster.Config{}
	cfg.Defaults()
	begin := time.Now()
	h, err := sshtest.Start(ctx, cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c, err := sshb.Start(ctx, cluster.Config{KafkaVersion: cfg.KafkaVersion}, h.Spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster ready over SSH in %s, bootstrap %v", time.Since(begin).Round(100*time.Millisecond), c.Bootstrap())
	defer c.Teardown(context.Background())

	st := func(id int32) cluster.NodeState {
		s, err := c.State(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := st(1); !s.Running || s.Paused {
		t.Fatalf("broker 1: %+v, want running", s)
	}
	if err := c.Pause(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if s := st(1); !s.Paused {
		t.Errorf("after Pause: %+v", s)
	}
	if err := c.Resume(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if s := st(1); s.Paused || !s.Running {
		t.Errorf("after Resume: %+v", s)
	}
	if err := c.Kill(ctx, 2); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for st(2).Running && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if st(2).Running {
		t.Fatal("broker 2 still runs after kill -9")
	}
	files, err := c.Files(2)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := files.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range ls {
		names = append(names, f.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "meta.properties") {
		t.Errorf("log dir of broker 2: %v, want meta.properties", names)
	}
	if _, err := files.ReadFile(ctx, "no-such-file"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if err := files.WriteFile(ctx, "kchaos-probe", []byte("abc\n")); err != nil {
		t.Fatal(err)
	}
	if err := files.Truncate(ctx, "kchaos-probe", 2); err != nil {
		t.Fatal(err)
	}
	if b, err := files.ReadFile(ctx, "kchaos-probe"); err != nil || string(b) != "ab" {
		t.Errorf("probe: %q, %v", b, err)
	}
	if err := files.Remove(ctx, "kchaos-probe"); err != nil {
		t.Fatal(err)
	}
	if _, err := files.ReadFile(ctx, "../../../etc/passwd"); err == nil {
		t.Error("a path out of the log dir was read")
	}
	peer, _ := c.Node(0)
	if _, err := c.Exec(ctx, 1, "sh", "-c", "iptables -w 5 -I INPUT -s "+peer.IP+" -m comment --comment kchaos -j DROP"); err != nil {
		t.Fatal(err)
	}
	state, err := sshb.ReadState(sshb.StatePath(&h.Spec))
	if err != nil {
		t.Fatal(err)
	}
	if p := state.Pending(); len(p) != 2 || !state.Nodes[1].Rules || !state.Nodes[2].Down {
		t.Errorf("state file: pending %v, nodes %+v; want 1 (rules) and 2 (down)", p, state.Nodes)
	}
	// Clean undoes both, as after a crash.
	did, err := sshb.Clean(ctx, h.Spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clean: %v", did)
	out, err := c.Exec(ctx, 1, "iptables", "-S")
	if err != nil || strings.Contains(out, "kchaos") {
		t.Errorf("rules after clean: %q, %v", out, err)
	}
	if s := st(2); !s.Running {
		t.Errorf("broker 2 after clean: %+v, want started", s)
	}
	if err := cluster.WaitBrokers(ctx, c, []int32{0, 1, 2}, 90*time.Second); err != nil {
		t.Error(err)
	}
}

// TestSSHAgentAndSudo logs in with the SSH agent only (no key file: an
// in-process agent on a unix socket holds the test key) and runs every
// command through sudo -n, as on hosts where kchaos's user is not root.
func TestSSHAgentAndSudo(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cfg := cluster.Config{}
	cfg.Defaults()
	dir := t.TempDir()
	h, err := sshtest.Start(ctx, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	keyPEM, err := os.ReadFile(h.Spec.SSH.Key)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := xssh.ParseRawPrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _ = agent.ServeAgent(keyring, conn); conn.Close() }()
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)

	spec := h.Spec
	spec.SSH.Key, spec.SSH.Agent, spec.SSH.Sudo = "", true, true
	c, err := sshb.Start(ctx, cluster.Config{KafkaVersion: cfg.KafkaVersion}, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Teardown(context.Background())
	out, err := c.Exec(ctx, 0, "id", "-u")
	if err != nil || strings.TrimSpace(out) != "0" {
		t.Fatalf("id -u through sudo: %q, %v", out, err)
	}
	if err := c.Pause(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if s, err := c.State(ctx, 1); err != nil || !s.Paused {
		t.Errorf("after Pause through sudo: %+v, %v", s, err)
	}
	if err := c.Resume(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if s, err := c.State(ctx, 1); err != nil || s.Paused || !s.Running {
		t.Errorf("after Resume through sudo: %+v, %v", s, err)
	}
}
