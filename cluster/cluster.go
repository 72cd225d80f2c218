package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
)

// Nodes is the part of a cluster that faults act on: which nodes there
// are, what can be done to one, and its log dir's files. Every method
// acts on a node of this cluster only (a backend knows no others), so a
// fault cannot touch anything outside the run. Node ids are Kafka's:
// brokers 0..N-1, controllers from ControllerIDBase.
type Nodes interface {
	// Brokers and Controllers return the nodes in id order.
	Brokers() []Node
	Controllers() []Node
	Node(id int32) (Node, bool)
	// Bootstrap is the brokers' addresses, reachable from the harness.
	Bootstrap() []string

	// Start starts a stopped node again with the same disk. It returns
	// once the process runs, not once Kafka is ready.
	Start(ctx context.Context, id int32) error
	// Stop stops a node cleanly: SIGTERM, then SIGKILL after timeout.
	Stop(ctx context.Context, id int32, timeout time.Duration) error
	// Kill sends SIGKILL: the process dies without flushing; its disk stays.
	Kill(ctx context.Context, id int32) error
	// Signal sends a signal by name ("KILL", "TERM", "STOP", "CONT") to the
	// node's Kafka process.
	Signal(ctx context.Context, id int32, sig string) error
	// Pause freezes every process of the node (no signal the process can
	// see); Resume thaws it.
	Pause(ctx context.Context, id int32) error
	Resume(ctx context.Context, id int32) error
	// State reports whether the node's process runs and whether it is paused.
	State(ctx context.Context, id int32) (NodeState, error)
	// Exec runs cmd on the node (in its network namespace: iptables rules
	// it adds cut the node's traffic) and returns the combined output; a
	// non-zero exit is an error that carries the output.
	Exec(ctx context.Context, id int32, cmd ...string) (string, error)
	// Files is the node's Kafka log dir. It must work while the node is
	// killed or stopped: that is when the power-loss fault cuts it.
	Files(id int32) (LogFiles, error)
	// Capabilities is what the backend can do to its nodes (its package's
	// declared set): faults that need more are refused before they fire.
	Capabilities() Caps
}

// Cluster is a running Kafka cluster of one run, as the harness holds it:
// the nodes, plus what a run needs around the faults.
type Cluster interface {
	Nodes
	// RunID names the run (labels, folders, the cluster id).
	RunID() string
	// Config is the cluster's configuration with defaults filled.
	Config() Config
	// Version is the Kafka release.
	Version() Version
	// Logs returns a node's Kafka server log.
	Logs(ctx context.Context, id int32) ([]byte, error)
	// CopyLogs writes each node's log to dir/<role>-<id>.log.
	CopyLogs(ctx context.Context, dir string) error
	// Admin returns an admin client for the cluster; the caller closes it.
	Admin() (*admin.Client, error)
	// Teardown copies the logs into Config.LogDir (when set) and removes
	// everything the backend made for the run. It is safe to call more
	// than once and from a signal handler's goroutine.
	Teardown(ctx context.Context) error
}

// NodeState is a node's process state.
type NodeState struct {
	Running, Paused bool
	ExitCode        int
}

// NewRunID returns a fresh run id: a timestamp and random suffix.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// Upgrader is implemented by backends that can run a node on another
// Kafka release in place: the node is stopped cleanly (SIGTERM, wait),
// and started again on release version with the same data directory,
// config, name and address, as an operator's rolling upgrade does. It
// returns once the new process runs, not once Kafka is ready. Faults
// type-assert a Nodes for it; a backend without it cannot upgrade.
type Upgrader interface {
	Upgrade(ctx context.Context, id int32, version string) error
	// NodeVersion is the release node id runs now.
	NodeVersion(id int32) (string, bool)
}
