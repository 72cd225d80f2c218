package ssh

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Spec is a scenario's `cluster:` section for the SSH backend: the hosts,
// how to reach them, and how Kafka runs there. The hosts run Kafka already
// (the operator's own cluster); kchaos starts, stops and signals it only as
// the faults need and undoes what it did.
type Spec struct {
	Hosts []Host `yaml:"hosts"`
	SSH   Auth   `yaml:"ssh"`
	// Service is how Kafka runs on every host. (The issue calls it
	// `kafka:`, but cluster.kafka already is the Kafka version.)
	Service Service `yaml:"service"`
	// ConfirmOwner is the operator's statement that they own these hosts
	// and may break them: kchaos refuses to start without it (or the
	// --i-own-these-hosts flag).
	ConfirmOwner bool `yaml:"confirm_owner,omitempty"`
	// StateDir holds the state file (default ~/.kchaos/ssh-state).
	StateDir string `yaml:"state_dir,omitempty"`
}

// Host is one Kafka node.
type Host struct {
	ID   int32  `yaml:"id"`
	Addr string `yaml:"addr"`           // SSH address, host[:port] (port 22 by default)
	IP   string `yaml:"ip,omitempty"`   // the node's IP on the Kafka network; default: Addr's host, resolved
	Rack string `yaml:"rack,omitempty"` // brokers only
	Role string `yaml:"role,omitempty"` // broker (default) or controller
}

// Auth is how kchaos logs in. The host key is always checked against
// KnownHosts; the key file, the SSH agent (SSH_AUTH_SOCK) or both
// authenticate.
type Auth struct {
	User       string `yaml:"user"`
	Key        string `yaml:"key,omitempty"`
	Agent      bool   `yaml:"agent,omitempty"`
	KnownHosts string `yaml:"known_hosts"`
	// Sudo runs every command through `sudo -n` (passwordless sudo).
	Sudo bool `yaml:"sudo,omitempty"`
}

// Service is how Kafka runs on each host.
type Service struct {
	Start string `yaml:"start"` // e.g. "systemctl start kafka"
	Stop  string `yaml:"stop"`  // e.g. "systemctl stop kafka"
	// Process is a pattern of Kafka's command line (pgrep/pkill -f),
	// default kafka.Kafka.
	Process string   `yaml:"process,omitempty"`
	LogDirs []string `yaml:"log_dirs"`
	// Log is the Kafka server log file, fetched into the run folder.
	Log string `yaml:"log,omitempty"`
	// Config is each node's server.properties (read into run.json).
	Config string `yaml:"config,omitempty"`
	// Bootstrap is the brokers' advertised listeners; default ip:9092 of
	// every broker.
	Bootstrap []string `yaml:"bootstrap,omitempty"`
}

// DefaultProcess is the process pattern when none is given.
const DefaultProcess = "kafka.Kafka"

// Defaults fills unset fields.
func (s *Spec) Defaults() {
	if s.Service.Process == "" {
		s.Service.Process = DefaultProcess
	}
	for i := range s.Hosts {
		if s.Hosts[i].Role == "" {
			s.Hosts[i].Role = "broker"
		}
	}
}

// Validate reports every problem, each naming its field path under prefix
// (e.g. "cluster").
func (s *Spec) Validate(prefix string) []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s.%s: %s", prefix, field, fmt.Sprintf(format, args...)))
	}
	if len(s.Hosts) == 0 {
		add("hosts", "missing: the ssh backend needs at least one host")
	}
	seen := map[int32]bool{}
	brokers, controllers := 0, 0
	for i, h := range s.Hosts {
		f := fmt.Sprintf("hosts[%d]", i)
		if seen[h.ID] {
			add(f+".id", "%d given twice", h.ID)
		}
		seen[h.ID] = true
		if strings.TrimSpace(h.Addr) == "" {
			add(f+".addr", "missing")
		}
		if h.IP != "" && net.ParseIP(h.IP) == nil {
			add(f+".ip", "%q is not an IP address", h.IP)
		}
		switch h.Role {
		case "", "broker":
			brokers++
		case "controller":
			controllers++
			if h.Rack != "" {
				add(f+".rack", "a controller has no rack")
			}
		default:
			add(f+".role", "%q: want broker or controller", h.Role)
		}
	}
	ids := map[string][]int32{}
	for _, h := range s.Hosts {
		ids[h.Role] = append(ids[h.Role], h.ID)
	}
	if b := ids["broker"]; len(b) > 0 {
		slices.Sort(b)
		for i, id := range b {
			if id != int32(i) {
				add("hosts", "broker ids %v: want 0..%d", b, brokers-1)
				break
			}
		}
	}
	if c := ids["controller"]; len(c) > 0 {
		slices.Sort(c)
		for i, id := range c {
			if id != int32(1000+i) {
				add("hosts", "controller ids %v: want 1000..%d", c, 1000+controllers-1)
				break
			}
		}
	}
	if s.SSH.User == "" {
		add("ssh.user", "missing")
	}
	if s.SSH.KnownHosts == "" {
		add("ssh.known_hosts", "missing: kchaos checks every host key and never skips the check")
	}
	if s.SSH.Key == "" && !s.SSH.Agent {
		add("ssh.key", "missing: give a private key file, or agent: true")
	}
	if strings.TrimSpace(s.Service.Start) == "" {
		add("service.start", "missing: the command that starts Kafka (e.g. systemctl start kafka)")
	}
	if strings.TrimSpace(s.Service.Stop) == "" {
		add("service.stop", "missing: the command that stops Kafka (e.g. systemctl stop kafka)")
	}
	if len(s.Service.LogDirs) != 1 {
		add("service.log_dirs", "%d given: want exactly one log dir", len(s.Service.LogDirs))
	}
	for i, d := range s.Service.LogDirs {
		if !path.IsAbs(d) || path.Clean(d) == "/" {
			add(fmt.Sprintf("service.log_dirs[%d]", i), "%q: want an absolute path below /", d)
		}
	}
	if strings.ContainsAny(s.Service.Process, "'\"\n") {
		add("service.process", "%q: no quotes or newlines", s.Service.Process)
	}
	return errs
}

// Brokers is how many broker hosts there are.
func (s *Spec) Brokers() int {
	n := 0
	for _, h := range s.Hosts {
		if h.Role == "" || h.Role == "broker" {
			n++
		}
	}
	return n
}

// Controllers is how many controller hosts there are.
func (s *Spec) Controllers() int { return len(s.Hosts) - s.Brokers() }

// key names the host set: the state file of these hosts is Key().json,
// whichever scenario or hosts file names them.
func (s *Spec) key() string {
	var addrs []string
	for _, h := range s.Hosts {
		addrs = append(addrs, strconv.Itoa(int(h.ID))+"="+sshAddr(h.Addr))
	}
	slices.Sort(addrs)
	sum := sha256.Sum256([]byte(strings.Join(addrs, "\n")))
	return hex.EncodeToString(sum[:8])
}

// sshAddr adds port 22 when addr has none.
func sshAddr(addr string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(addr, "22")
}
