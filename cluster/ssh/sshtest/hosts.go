// Package sshtest makes the SSH backend's test hosts: containers of the
// image kchaos/sshhost:<version> (image/sshhost: the Kafka image plus
// openssh-server, sshd as PID 1) on a Docker network that it creates with
// an explicit subnet in 10.232.0.0/16, each with NET_ADMIN for iptables.
// It drives Docker through the docker CLI (never the backend, which knows
// only SSH), generates a throwaway client key, host key and known_hosts,
// writes each node's server.properties (cluster.Render) over SSH and
// starts Kafka there as a plain process. Tests only.
package sshtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"github.com/kchaos/kchaos/cluster"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
)

// label marks every container and network this package makes.
const label = "org.kchaos.sshtest"

// runLabel is cluster/docker's run label (not imported: no Docker client
// here), so that `kchaos clean` also removes test hosts a crashed test left.
const runLabel = "org.kchaos.run"

// Hosts is a set of running test hosts.
type Hosts struct {
	ID      string
	Dir     string // keys, known_hosts, the state dir
	Network string
	Spec    sshb.Spec
	names   []string
}

// image is the test host image of a Kafka version.
func image(version string) string { return "kchaos/sshhost:" + cluster.ImageTag(version) }

// ensureImage builds the test host image when it is missing
// (image/sshhost/build.sh, which builds the Kafka image first if needed).
func ensureImage(version string) error {
	if exec.Command("docker", "image", "inspect", image(version)).Run() == nil {
		return nil
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "..", "image", "sshhost", "build.sh")
	out, err := exec.Command(script, version).CombinedOutput()
	if err != nil {
		return fmt.Errorf("build %s: %w: %s", image(version), err, out)
	}
	return nil
}

func docker(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return strings.TrimSpace(string(out)), nil
}

// Start makes cfg's nodes as SSH hosts (controllers .10+, brokers .20+ of
// the subnet) and starts Kafka on each. dir receives the keys.
func Start(ctx context.Context, cfg cluster.Config, dir string) (h *Hosts, err error) {
	cfg.Defaults()
	if err := ensureImage(cfg.KafkaVersion); err != nil {
		return nil, err
	}
	h = &Hosts{ID: cluster.NewRunID(), Dir: dir}
	defer func() {
		if err != nil {
			h.Close()
		}
	}()
	if err := h.keys(); err != nil {
		return h, err
	}
	subnet, err := h.network(ctx)
	if err != nil {
		return h, err
	}
	base := subnet.Addr().As4()
	ip := func(last byte) string { b := base; b[3] = last; return netip.AddrFrom4(b).String() }
	var nodes []cluster.Node
	rackOf := cfg.Racks.RackOf()
	for i := 0; i < cfg.Controllers; i++ {
		nodes = append(nodes, cluster.Node{ID: int32(cluster.ControllerIDBase + i), Role: cluster.RoleController, IP: ip(byte(10 + i))})
	}
	for i := 0; i < cfg.Brokers; i++ {
		nodes = append(nodes, cluster.Node{ID: int32(i), Role: cluster.RoleBroker, IP: ip(byte(20 + i)), Rack: rackOf[int32(i)]})
	}
	var known strings.Builder
	hostPub, err := os.ReadFile(filepath.Join(dir, "ssh_host_ed25519_key.pub"))
	if err != nil {
		return h, err
	}
	for _, n := range nodes {
		fmt.Fprintf(&known, "%s %s", n.IP, hostPub)
		role := "broker"
		if n.Role == cluster.RoleController {
			role = "controller"
		}
		h.Spec.Hosts = append(h.Spec.Hosts, sshb.Host{ID: n.ID, Addr: n.IP, IP: n.IP, Rack: n.Rack, Role: role})
	}
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(known.String()), 0o600); err != nil {
		return h, err
	}
	h.Spec.SSH = sshb.Auth{User: "root", Key: filepath.Join(dir, "id_ed25519"), KnownHosts: filepath.Join(dir, "known_hosts")}
	h.Spec.Service = sshb.Service{
		Start: "/opt/kafka/bin/kchaos-start", Stop: "/opt/kafka/bin/kchaos-stop 30",
		Process: sshb.DefaultProcess, LogDirs: []string{cluster.DataDir},
		Log: "/var/log/kafka/server.log", Config: "/etc/kafka/server.properties",
	}
	h.Spec.ConfirmOwner = true
	h.Spec.StateDir = filepath.Join(dir, "state")
	for _, n := range nodes {
		name := fmt.Sprintf("kchaos-sshtest-%s-%s-%d", h.ID, n.Role, n.ID)
		if _, err := docker(ctx, "run", "-d", "--name", name, "--hostname", fmt.Sprintf("%s-%d", n.Role, n.ID),
			"--label", label+"="+h.ID, "--label", runLabel+"="+h.ID, "--network", h.Network, "--ip", n.IP, "--cap-add", "NET_ADMIN",
			"-v", dir+"/hostkeys:/kchaos-ssh:ro", image(cfg.KafkaVersion)); err != nil {
			return h, err
		}
		h.names = append(h.names, name)
	}
	v, _ := cluster.ParseVersion(cfg.KafkaVersion)
	voters := cluster.StaticVoters(cluster.Voters(nodes[:cfg.Controllers]))
	var wg sync.WaitGroup
	errs := make([]error, len(nodes))
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.setup(ctx, cfg, v, n, voters)
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return h, e
		}
	}
	return h, nil
}

// setup writes node n's server.properties and settings over SSH and
// starts Kafka with the service's start command.
func (h *Hosts) setup(ctx context.Context, cfg cluster.Config, v cluster.Version, n cluster.Node, voters cluster.QuorumAddrs) error {
	props := cluster.Render(n, voters, cfg.Brokers, cfg.BrokerConfig, cfg.PerBroker[n.ID])
	heap := cfg.BrokerHeapMB
	if n.Role == cluster.RoleController {
		props = cluster.Render(n, voters, cfg.Brokers, cfg.ControllerConfig)
		heap = cfg.ControllerHeapMB
	}
	env := fmt.Sprintf("KCHAOS_CLUSTER_ID=%s\nKCHAOS_FORMAT_ARGS='%s'\nKAFKA_HEAP_OPTS='-Xms%dm -Xmx%dm'\n",
		cluster.ClusterID(h.ID), strings.Join(cluster.FormatArgs(v, cfg.ELR, cfg.TransactionVersion, cfg.ShareVersion), " "), heap/2, heap)
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if _, last = h.Run(ctx, n.IP, "mkdir -p "+cluster.DataDir+" /etc/kafka", nil); last == nil {
			break
		}
	}
	if last != nil {
		return fmt.Errorf("node %d: sshd never answered: %w", n.ID, last)
	}
	if _, err := h.Run(ctx, n.IP, "cat > /etc/kafka/server.properties", strings.NewReader(props)); err != nil {
		return err
	}
	if _, err := h.Run(ctx, n.IP, "cat > /etc/kafka/kchaos.env", strings.NewReader(env)); err != nil {
		return err
	}
	if _, err := h.Run(ctx, n.IP, h.Spec.Service.Start, nil); err != nil {
		return err
	}
	// The start script formats the log dir first (a JVM of its own), then
	// runs kafka.Kafka: wait for that process, as a service manager's
	// start would.
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if out, err := h.Run(ctx, n.IP, "pgrep -f '[k]afka.Kafka'", nil); err == nil && strings.TrimSpace(out) != "" {
			return nil
		}
	}
	log, _ := h.Run(ctx, n.IP, "tail -n 20 /var/log/kafka/server.log", nil)
	return fmt.Errorf("node %d: kafka.Kafka never ran; log:\n%s", n.ID, log)
}

// Run runs a script on the host at ip over SSH.
// stdin may be nil.
func (h *Hosts) Run(ctx context.Context, ip, script string, stdin io.Reader) (string, error) {
	return sshb.RunOn(ctx, h.Spec.SSH, ip, script, stdin)
}

func (h *Hosts) network(ctx context.Context) (netip.Prefix, error) {
	var last error
	for i := 0; i < 16; i++ {
		n, _ := rand.Int(rand.Reader, big.NewInt(256))
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 232, byte(n.Int64()), 0}), 24)
		name := "kchaos-sshtest-" + h.ID
		_, err := docker(ctx, "network", "create", "--subnet", p.String(), "--label", label+"="+h.ID, "--label", runLabel+"="+h.ID, name)
		if err == nil {
			h.Network = name
			return p, nil
		}
		last = err
		if !strings.Contains(err.Error(), "overlap") {
			break
		}
	}
	return netip.Prefix{}, last
}

// keys writes a client key, its authorized_keys and a host key.
func (h *Hosts) keys() error {
	if err := os.MkdirAll(filepath.Join(h.Dir, "hostkeys"), 0o755); err != nil {
		return err
	}
	write := func(name string) (xssh.PublicKey, error) {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		blk, err := xssh.MarshalPrivateKey(priv, "kchaos test")
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(name, pem.EncodeToMemory(blk), 0o600); err != nil {
			return nil, err
		}
		sp, err := xssh.NewPublicKey(pub)
		if err != nil {
			return nil, err
		}
		return sp, os.WriteFile(name+".pub", xssh.MarshalAuthorizedKey(sp), 0o644)
	}
	client, err := write(filepath.Join(h.Dir, "id_ed25519"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(h.Dir, "hostkeys", "authorized_keys"), xssh.MarshalAuthorizedKey(client), 0o644); err != nil {
		return err
	}
	if _, err := write(filepath.Join(h.Dir, "hostkeys", "ssh_host_ed25519_key")); err != nil {
		return err
	}
	return os.Rename(filepath.Join(h.Dir, "hostkeys", "ssh_host_ed25519_key.pub"), filepath.Join(h.Dir, "ssh_host_ed25519_key.pub"))
}

// Close removes the containers and the network.
func (h *Hosts) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if len(h.names) > 0 {
		_, _ = docker(ctx, append([]string{"rm", "-f"}, h.names...)...)
	}
	if h.Network != "" {
		_, _ = docker(ctx, "network", "rm", h.Network)
	}
}
