// Package nemesisfake is the unit tests' in-memory cluster, shared by the
// tests of the seam (package nemesis) and of every room: nodes that run,
// pause and stop, an iptables that keeps the rules the faults' scripts
// add and delete, the network beyond it (net.go: tc, probes, host dials)
// and an admin client over them (admin.go), so that the faults, their
// proofs and their heals are tested without Docker. It imports no part of
// the nemesis (the seam's own tests import it), so it knows the faults
// only by the commands they run and the admin calls they make. Only
// tests import it (internal/layers).
package nemesisfake

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
)

// Cluster is an in-memory cluster: containers that run, pause and stop,
// and an iptables that keeps the rules the nemesis scripts add and
// delete, so the runner and the heal can be tested without Docker. Like
// Docker, starting a stopped container gives it a fresh network namespace
// (no rules). Its fields are the tests' to read and set, under Mu.
type Cluster struct {
	Mu sync.Mutex
	// Nodes and States are the nodes and their containers' states.
	Nodes  map[int32]cluster.Node
	States map[int32]cluster.NodeState
	// Rules are each node's iptables rules as `iptables -S` prints them.
	Rules map[int32][]string
	// Calls are the state changes made, "kill 2", in order.
	Calls []string
	// LogDirs are the nodes' log dirs on the local disk, for the
	// power-loss fault; tests set them.
	LogDirs map[int32]string
	// OnCall sees each state change first; it may panic, for the runner's
	// panic test.
	OnCall func(call string)
	// Net is the simulated tc state, probes and host dials (net.go).
	Net Net
	// ClientCtrs are client containers' addresses (ClientAddrs gives them
	// after the host's); tests set them.
	ClientCtrs []netip.Addr
}

var _ cluster.Nodes = (*Cluster)(nil)

// NewCluster is controller 1000 and brokers 0, 1 (rack a) and 2 (rack
// b), running, at 10.9.0.10 and 10.9.0.20-22.
func NewCluster() *Cluster {
	f := &Cluster{Nodes: map[int32]cluster.Node{}, States: map[int32]cluster.NodeState{},
		Rules: map[int32][]string{}}
	add := func(n cluster.Node) {
		f.Nodes[n.ID] = n
		f.States[n.ID] = cluster.NodeState{Running: true}
	}
	add(cluster.Node{ID: 1000, Role: cluster.RoleController, IP: "10.9.0.10"})
	for i, rack := range []string{"a", "a", "b"} {
		add(cluster.Node{ID: int32(i), Role: cluster.RoleBroker, IP: fmt.Sprintf("10.9.0.%d", 20+i), Rack: rack})
	}
	return f
}

// AddControllers makes f's controllers n: 1000 and those after it, each
// running, for the quorum tests.
func (f *Cluster) AddControllers(n int32) {
	for i := int32(1); i < n; i++ {
		id := cluster.ControllerIDBase + i
		f.Nodes[id] = cluster.Node{ID: id, Role: cluster.RoleController, IP: fmt.Sprintf("10.9.0.%d", 10+i)}
		f.States[id] = cluster.NodeState{Running: true}
	}
}

func (f *Cluster) list(role cluster.Role) []cluster.Node {
	var out []cluster.Node
	for _, n := range f.Nodes {
		if n.Role == role {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b cluster.Node) int { return int(a.ID - b.ID) })
	return out
}

func (f *Cluster) Brokers() []cluster.Node     { return f.list(cluster.RoleBroker) }
func (f *Cluster) Controllers() []cluster.Node { return f.list(cluster.RoleController) }
func (f *Cluster) Node(id int32) (cluster.Node, bool) {
	n, ok := f.Nodes[id]
	return n, ok
}
func (f *Cluster) Bootstrap() []string {
	var out []string
	for _, n := range f.Brokers() {
		out = append(out, n.Addr())
	}
	return out
}

// Files serves each node's log dir from a folder of the test's own
// (SetLogDir); a node without one has no log dir to cut.
func (f *Cluster) Files(id int32) (cluster.LogFiles, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if d, ok := f.LogDirs[id]; ok {
		return cluster.LocalDir(d), nil
	}
	return nil, fmt.Errorf("node %d: no log dir in the fake cluster", id)
}

// op records a call and changes a node's state; check refuses what Docker
// refuses.
func (f *Cluster) op(name string, id int32, check func(cluster.NodeState) error, apply func(*cluster.NodeState)) error {
	call := fmt.Sprintf("%s %d", name, id)
	if f.OnCall != nil {
		f.OnCall(call)
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	st, ok := f.States[id]
	if !ok {
		return fmt.Errorf("node %d: no such node", id)
	}
	if err := check(st); err != nil {
		return fmt.Errorf("node %d: %s: %w", id, name, err)
	}
	f.Calls = append(f.Calls, call)
	apply(&st)
	f.States[id] = st
	return nil
}

func mustRun(st cluster.NodeState) error {
	if !st.Running {
		return fmt.Errorf("not running")
	}
	return nil
}

func (f *Cluster) Kill(_ context.Context, id int32) error {
	return f.op("kill", id, mustRun, func(s *cluster.NodeState) { *s = cluster.NodeState{ExitCode: 137} })
}

// Signal delivers KILL like Kill and TERM like Stop; the nemesis sends
// no others.
func (f *Cluster) Signal(ctx context.Context, id int32, sig string) error {
	switch sig {
	case "KILL":
		return f.Kill(ctx, id)
	case "TERM":
		return f.Stop(ctx, id, 0)
	}
	return fmt.Errorf("fake cluster: signal %s not simulated", sig)
}

func (f *Cluster) Stop(_ context.Context, id int32, _ time.Duration) error {
	return f.op("stop", id, func(cluster.NodeState) error { return nil }, func(s *cluster.NodeState) { *s = cluster.NodeState{} })
}

func (f *Cluster) Start(_ context.Context, id int32) error {
	return f.op("start", id, func(cluster.NodeState) error { return nil }, func(s *cluster.NodeState) {
		if !s.Running {
			f.Rules[id] = nil // a fresh network namespace
			delete(f.Net.TC, id)
		}
		*s = cluster.NodeState{Running: true}
	})
}

func (f *Cluster) Pause(_ context.Context, id int32) error {
	return f.op("pause", id, mustRun, func(s *cluster.NodeState) { s.Paused = true })
}

func (f *Cluster) Resume(_ context.Context, id int32) error {
	return f.op("unpause", id, func(st cluster.NodeState) error {
		if !st.Paused {
			return fmt.Errorf("not paused")
		}
		return nil
	}, func(s *cluster.NodeState) { s.Paused = false })
}

func (f *Cluster) State(_ context.Context, id int32) (cluster.NodeState, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	st, ok := f.States[id]
	if !ok {
		return st, fmt.Errorf("node %d: no such node", id)
	}
	return st, nil
}

// Exec understands the commands the nemesis runs: `iptables -w 5 -S`,
// `sh -c` scripts of iptables -I/-D lines, and (netExec) tc, ip route and
// the proofs' probes.
func (f *Cluster) Exec(_ context.Context, id int32, cmd ...string) (string, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	st := f.States[id]
	if !st.Running || st.Paused {
		return "", fmt.Errorf("node %d: exec: container not running or paused", id)
	}
	if out, err, ok := f.netExec(id, cmd); ok {
		return out, err
	}
	if slices.Equal(cmd, []string{"iptables", "-w", "5", "-S"}) {
		out := "-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n-A INPUT -s 10.9.0.99/32 -j DROP\n"
		for _, r := range f.Rules[id] {
			out += r + "\n"
		}
		return out, nil
	}
	if slices.Equal(cmd, []string{"iptables", "-w", "5", "-S", "-v"}) {
		return f.rulesWithCounters(id), nil
	}
	if len(cmd) != 3 || cmd[0] != "sh" || cmd[1] != "-c" {
		return "", fmt.Errorf("fake exec: unexpected %q", cmd)
	}
	for _, line := range strings.Split(cmd[2], "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 || line == "set -e" {
			continue
		}
		if len(fs) < 5 || fs[0] != "iptables" {
			return "", fmt.Errorf("fake exec: unexpected line %q", line)
		}
		spec := fs[4:]
		for i, a := range spec { // iptables -S writes an address as a /32
			if (a == "-s" || a == "-d") && i+1 < len(spec) && !strings.Contains(spec[i+1], "/") {
				spec[i+1] += "/32"
			}
		}
		switch fs[3] {
		case "-I":
			f.Rules[id] = append(f.Rules[id], "-A "+strings.Join(spec, " "))
		case "-D":
			r := "-A " + strings.Join(spec, " ")
			i := slices.Index(f.Rules[id], r)
			if i < 0 {
				return "", fmt.Errorf("iptables: Bad rule (does a matching rule exist in that chain?): %s", r)
			}
			f.Rules[id] = slices.Delete(f.Rules[id], i, i+1)
		default:
			return "", fmt.Errorf("fake exec: unexpected line %q", line)
		}
	}
	return "", nil
}

// RuleCount is how many rules node id has.
func (f *Cluster) RuleCount(id int32) int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return len(f.Rules[id])
}

// CutOff reports whether a kchaos rule on node a drops node b.
func (f *Cluster) CutOff(a, b int32) bool {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	for _, r := range f.Rules[a] {
		if strings.Contains(r, " "+f.Nodes[b].IP+"/32 ") && !isLossRule(r) {
			return true
		}
	}
	return false
}
