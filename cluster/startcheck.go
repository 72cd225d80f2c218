package cluster

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"
)

// logTailLines is how much of a failed node's log a start error quotes.
const logTailLines = 12

// NodeStartError says that one node did not come up: its process exited
// or its Kafka listener never opened. It quotes the end of the node's log,
// where Kafka writes why (for example kafka-storage's argument error or a
// ConfigException naming the key).
type NodeStartError struct {
	Node    Node
	Cause   string // "exited with code 1", "listener 10.231.4.21:9092 never opened"
	LogTail string
	Elapsed time.Duration
	// Hint explains a refusal that a Kafka release introduced (empty
	// entries of a list-type config from 4.2, KIP-1161), so a config that
	// an older release took is not blamed on kchaos; empty otherwise.
	Hint string
}

func (e *NodeStartError) Error() string {
	msg := fmt.Sprintf("cluster: %s %s (%s) %s after %s", e.Node.Role, e.Node.Name, e.Node.Addr(), e.Cause, e.Elapsed.Round(100*time.Millisecond))
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	if e.LogTail != "" {
		msg += "; last lines of its log:\n" + indent(e.LogTail)
	}
	return msg
}

// WaitStarted waits until every broker is registered and unfenced, like
// WaitBrokers, but fails at once, naming the node and quoting its log, when
// a node's process exits; at the limit it names every node whose listener
// is still closed instead of only the brokers that are missing. Backends
// call it at the end of their start.
func WaitStarted(ctx context.Context, c Cluster, limit time.Duration) error {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	ready := make(chan error, 1)
	go func() { ready <- WaitBrokers(wctx, c, IDs(c.Brokers()), limit) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-ready:
			if err == nil {
				return nil
			}
			if ctx.Err() != nil {
				return err
			}
			if nerr := closedListener(ctx, c, time.Since(start)); nerr != nil {
				return nerr
			}
			return err
		case <-tick.C:
			if nerr := exitedNode(ctx, c, time.Since(start)); nerr != nil {
				cancel()
				<-ready
				return nerr
			}
		}
	}
}

// exitedNode returns the first node (in id order) whose process is no
// longer running.
func exitedNode(ctx context.Context, c Cluster, elapsed time.Duration) error {
	for _, n := range AllNodes(c) {
		st, err := c.State(ctx, n.ID)
		if err != nil || st.Running {
			continue
		}
		tail := logTail(ctx, c, n.ID)
		return &NodeStartError{Node: n, Cause: fmt.Sprintf("exited with code %d during start", st.ExitCode),
			LogTail: tail, Elapsed: elapsed, Hint: startHint(c.Version(), tail)}
	}
	return nil
}

// strictListMarker is how Kafka 4.2+ words a list-type config with an
// empty entry (ConfigDef.ValidList: "Configuration 'K' values must not be
// empty."; checked on 4.4.0 with KafkaConfig.fromProps).
const strictListMarker = "values must not be empty"

// startHint is a NodeStartError's Hint for a node log tail.
func startHint(v Version, tail string) string {
	if !v.strictListConfigs() || !strings.Contains(tail, strictListMarker) {
		return ""
	}
	key := ""
	if i := strings.Index(tail, "Configuration '"); i >= 0 {
		rest := tail[i+len("Configuration '"):]
		if j := strings.IndexByte(rest, '\''); j > 0 {
			key = rest[:j]
		}
	}
	what := "a list-type config"
	if key != "" {
		what = key + ", a list-type config,"
	}
	return fmt.Sprintf("Kafka %d.%d.%d refused %s with an empty entry (such as a doubled or trailing comma): from 4.2 list-type configs are validated strictly (KIP-1161), where earlier releases ignored empty entries; remove the empty entry from that line of your broker config", v.Major, v.Minor, v.Patch, what)
}

// closedListener returns the first node whose Kafka listener does not
// accept a connection.
func closedListener(ctx context.Context, c Cluster, elapsed time.Duration) error {
	for _, n := range AllNodes(c) {
		conn, err := net.DialTimeout("tcp", n.Addr(), 2*time.Second)
		if err == nil {
			conn.Close()
			continue
		}
		return &NodeStartError{Node: n, Cause: fmt.Sprintf("listener %s never opened", n.Addr()),
			LogTail: logTail(ctx, c, n.ID), Elapsed: elapsed}
	}
	return nil
}

// AllNodes is the controllers, then the brokers, each in id order.
func AllNodes(c Nodes) []Node {
	return append(c.Controllers(), c.Brokers()...)
}

// IDs is the nodes' ids, in the nodes' order.
func IDs(ns []Node) []int32 {
	out := make([]int32, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

// WaitBrokers waits until the given brokers are all registered and
// unfenced, as the admin API reports (the Metadata response lists only
// unfenced brokers).
func WaitBrokers(ctx context.Context, c Cluster, ids []int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	adm, err := c.Admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	var last []int32
	var lastErr error
	for {
		live, err := adm.LiveBrokers(ctx)
		if err == nil {
			last = live
			if containsAll(live, ids) {
				return nil
			}
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("brokers %v not all unfenced within %s (live: %v, last error: %v)", ids, limit, last, lastErr)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func containsAll(have, want []int32) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func logTail(ctx context.Context, c Cluster, id int32) string {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	b, err := c.Logs(lctx, id)
	if err != nil {
		return "(log unavailable: " + err.Error() + ")"
	}
	return tail(string(bytes.TrimRight(b, "\n")), logTailLines)
}

// tail returns the last n lines of s, leaving out Java stack frames so that
// the exception's message (which names the key or argument) is what shows.
func tail(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "at ") || (strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more")) {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
