// Package ssh is the SSH backend of package cluster: Kafka runs on hosts
// the operator owns, and kchaos reaches each over SSH
// (golang.org/x/crypto/ssh, host keys checked against known_hosts, key or
// agent auth, sudo when configured). It starts nothing at Start: the
// cluster runs already; faults stop, kill, pause and cut it through the
// operator's own start and stop commands, pkill -f on the Kafka process,
// iptables rules tagged "kchaos" and the log dir. Every change is written
// to a state file before it is made and cleared once undone, so that Clean
// (`kchaos clean --hosts FILE`) undoes what a crashed run left. Nothing
// here names Docker: the test hosts are made by the tests.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
)

// Cluster is a Kafka cluster on SSH hosts.
type Cluster struct {
	cfg         cluster.Config
	spec        Spec
	version     cluster.Version
	d           *dialer
	nodes       map[int32]cluster.Node
	addr        map[int32]string // SSH address of each node
	brokers     []int32
	controllers []int32
	state       *stateFile
	torn        sync.Once
	tearErr     error
}

var _ cluster.Cluster = (*Cluster)(nil)

// Capabilities is what kchaos can do on hosts it does not own: iptables
// rules (recorded in the state file, so Clean removes what a crash left),
// signals to the Kafka process, and its log dir over SFTP-like reads and
// cuts while it is down. Not netem (a tc qdisc on the user's host would
// outlive a crashed run: the state file records only iptables rules), not
// disks (the hosts' log.dirs are their own), not client cuts (the kchaos
// host's address on the hosts' network is unknown), not upgrades.
var Capabilities = cluster.NewCaps(cluster.CapPartition, cluster.CapPause, cluster.CapKill, cluster.CapPowerLoss)

// Capabilities is the backend's declared set (Capabilities).
func (c *Cluster) Capabilities() cluster.Caps { return Capabilities }

// ErrNotConfirmed is returned when the operator has not confirmed that
// they own the hosts.
var ErrNotConfirmed = errors.New("cluster.confirm_owner: kchaos breaks the Kafka cluster on these hosts (partitions, kill -9, power loss); " +
	"set confirm_owner: true in the scenario or pass --i-own-these-hosts to confirm that you own them")

// Start connects to every host, checks that Kafka runs on each and waits
// until every broker is registered and unfenced. It refuses hosts whose
// state file still lists faults of an earlier run (run Clean first).
func Start(ctx context.Context, cfg cluster.Config, spec Spec) (*Cluster, error) {
	spec.Defaults()
	if errs := spec.Validate("cluster"); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !spec.ConfirmOwner {
		return nil, ErrNotConfirmed
	}
	if cfg.RunID == "" {
		cfg.RunID = cluster.NewRunID()
	}
	cfg.Brokers, cfg.Controllers = spec.Brokers(), spec.Controllers()
	cfg.Racks = cluster.Racks{}
	for _, h := range spec.Hosts {
		if h.Role == "broker" && h.Rack != "" {
			cfg.Racks[h.Rack] = append(cfg.Racks[h.Rack], h.ID)
		}
	}
	if len(cfg.Racks) == 0 {
		cfg.Racks = nil
	}
	if cfg.KafkaVersion == "" {
		cfg.KafkaVersion = cluster.DefaultKafkaVersion
	}
	v, _ := cluster.ParseVersion(cfg.KafkaVersion)
	statePath := StatePath(&spec)
	prev, err := ReadState(statePath)
	if err != nil {
		return nil, err
	}
	if p := prev.Pending(); len(p) > 0 {
		return nil, fmt.Errorf("hosts: run %s left faults on nodes %v (state file %s): run `kchaos clean --hosts <this scenario>` first", prev.RunID, p, statePath)
	}
	d, err := newDialer(spec.SSH)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, spec: spec, version: v, d: d, nodes: map[int32]cluster.Node{}, addr: map[int32]string{}}
	c.state = &stateFile{paths: []string{statePath}, s: State{RunID: cfg.RunID}}
	if cfg.LogDir != "" {
		c.state.paths = append(c.state.paths, filepath.Join(filepath.Dir(cfg.LogDir), "ssh-state.json"))
	}
	if err := c.layout(ctx); err != nil {
		d.close()
		return nil, err
	}
	if err := c.checkRunning(ctx); err != nil {
		d.close()
		return nil, err
	}
	if err := cluster.WaitStarted(ctx, c, 150*time.Second); err != nil {
		d.close()
		return nil, err
	}
	return c, nil
}

// layout makes the nodes; a node's IP is its ip field or its SSH host
// resolved.
func (c *Cluster) layout(ctx context.Context) error {
	for _, h := range c.spec.Hosts {
		ip := h.IP
		if ip == "" {
			host, _, _ := net.SplitHostPort(sshAddr(h.Addr))
			ips, err := net.DefaultResolver.LookupHost(ctx, host)
			if err != nil || len(ips) == 0 {
				return fmt.Errorf("cluster.hosts: node %d: resolve %s: %v (or give ip:)", h.ID, host, err)
			}
			ip = ips[0]
		}
		role := cluster.RoleBroker
		if h.Role == "controller" {
			role = cluster.RoleController
			c.controllers = append(c.controllers, h.ID)
		} else {
			c.brokers = append(c.brokers, h.ID)
		}
		c.nodes[h.ID] = cluster.Node{ID: h.ID, Role: role, Name: h.Addr, IP: ip, Rack: h.Rack}
		c.addr[h.ID] = sshAddr(h.Addr)
	}
	slices.Sort(c.brokers)
	slices.Sort(c.controllers)
	return nil
}

// checkRunning logs in to every host and checks that Kafka runs there and
// is not stopped: kchaos does not start a cluster that was down.
func (c *Cluster) checkRunning(ctx context.Context) error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(c.nodes)) {
		st, err := c.State(ctx, id)
		switch {
		case err != nil:
			errs = append(errs, err)
		case !st.Running:
			errs = append(errs, fmt.Errorf("node %d (%s): no process matches %q: start Kafka there first", id, c.addr[id], c.spec.Service.Process))
		case st.Paused:
			errs = append(errs, fmt.Errorf("node %d (%s): Kafka is stopped (SIGSTOP): resume it first", id, c.addr[id]))
		}
	}
	return errors.Join(errs...)
}

func (c *Cluster) RunID() string            { return c.cfg.RunID }
func (c *Cluster) Config() cluster.Config   { return c.cfg }
func (c *Cluster) Version() cluster.Version { return c.version }
func (c *Cluster) Brokers() []cluster.Node  { return c.pick(c.brokers) }
func (c *Cluster) Controllers() []cluster.Node {
	return c.pick(c.controllers)
}

func (c *Cluster) pick(ids []int32) []cluster.Node {
	out := make([]cluster.Node, 0, len(ids))
	for _, id := range ids {
		out = append(out, c.nodes[id])
	}
	return out
}

func (c *Cluster) Node(id int32) (cluster.Node, bool) {
	n, ok := c.nodes[id]
	return n, ok
}

// Bootstrap is service.bootstrap, or every broker's ip:9092.
func (c *Cluster) Bootstrap() []string {
	if len(c.spec.Service.Bootstrap) > 0 {
		return slices.Clone(c.spec.Service.Bootstrap)
	}
	out := make([]string, 0, len(c.brokers))
	for _, id := range c.brokers {
		out = append(out, c.nodes[id].Addr())
	}
	return out
}

// Admin returns an admin client on the bootstrap addresses.
func (c *Cluster) Admin() (*admin.Client, error) { return admin.New(c.Bootstrap()) }

// PropertiesPath is where node id's server.properties is (service.config),
// or "" when not configured.
func (c *Cluster) PropertiesPath(int32) string { return c.spec.Service.Config }

// statePaths are the state file and its copy in the run folder.
func (c *Cluster) statePaths() []string { return slices.Clone(c.state.paths) }

func (c *Cluster) host(id int32) (string, error) {
	a, ok := c.addr[id]
	if !ok {
		return "", fmt.Errorf("node %d: no such node in run %s", id, c.cfg.RunID)
	}
	return a, nil
}

// sh runs a script on node id and returns stdout and stderr together.
func (c *Cluster) sh(ctx context.Context, id int32, script string) (string, error) {
	a, err := c.host(id)
	if err != nil {
		return "", err
	}
	out, errb, err := c.d.run(ctx, a, script, nil)
	if err != nil {
		return string(out) + string(errb), fmt.Errorf("node %d: %w", id, err)
	}
	return string(out) + string(errb), nil
}

// Files is node id's log dir on its host.
func (c *Cluster) Files(id int32) (cluster.LogFiles, error) {
	if _, err := c.host(id); err != nil {
		return nil, err
	}
	return remoteFiles{c: c, id: id, dir: c.spec.Service.LogDirs[0]}, nil
}

// Logs returns the last 16 MiB of node id's Kafka log (service.log).
func (c *Cluster) Logs(ctx context.Context, id int32) ([]byte, error) {
	if c.spec.Service.Log == "" {
		return nil, fmt.Errorf("node %d: no service.log configured", id)
	}
	out, err := c.sh(ctx, id, "tail -c 16777216 "+quote(c.spec.Service.Log))
	return []byte(out), err
}

// CopyLogs writes each node's log to dir/<role>-<id>.log.
func (c *Cluster) CopyLogs(ctx context.Context, dir string) error {
	if c.spec.Service.Log == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, n := range cluster.AllNodes(c) {
		b, err := c.Logs(ctx, n.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("logs of %s %d: %w", n.Role, n.ID, err))
			continue
		}
		errs = append(errs, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.log", n.Role, n.ID)), b, 0o644))
	}
	return errors.Join(errs...)
}

// Teardown copies the logs and closes the connections. It heals nothing
// itself (the harness's final heal does, through the nemesis); it reports
// faults still in force, which `kchaos clean --hosts` undoes.
func (c *Cluster) Teardown(ctx context.Context) error {
	c.torn.Do(func() {
		var errs []error
		if c.cfg.LogDir != "" {
			errs = append(errs, c.CopyLogs(ctx, c.cfg.LogDir))
		}
		c.state.mu.Lock()
		pending := c.state.s.Pending()
		c.state.mu.Unlock()
		if len(pending) > 0 {
			errs = append(errs, fmt.Errorf("faults still in force on nodes %v (state file %s): run `kchaos clean --hosts <scenario>`", pending, c.state.paths[0]))
		} else {
			_ = os.Remove(c.state.paths[0])
		}
		c.d.close()
		c.tearErr = errors.Join(errs...)
	})
	return c.tearErr
}

// mark records a change in the state file before (or, for an undo,
// after) it is made.
func (c *Cluster) mark(id int32, change func(*NodeState)) error {
	if err := c.state.update(id, c.addr[id], change); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}

// isRuleAdd reports whether a command adds iptables rules.
func isRuleAdd(cmd string) bool {
	return strings.Contains(cmd, "iptables") && (strings.Contains(cmd, " -I ") || strings.Contains(cmd, " -A "))
}

// isRuleDelete reports whether a command deletes iptables rules.
func isRuleDelete(cmd string) bool {
	return strings.Contains(cmd, "iptables") && strings.Contains(cmd, " -D ")
}
