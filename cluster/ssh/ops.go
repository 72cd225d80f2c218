package ssh

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
)

// Exec runs cmd on node id's host (its network namespace is the host's).
// Commands that add iptables rules are recorded in the state file first;
// after one that deletes rules, the node's record is cleared once no
// kchaos-tagged rule is left.
func (c *Cluster) Exec(ctx context.Context, id int32, cmd ...string) (string, error) {
	line := join(cmd...)
	if isRuleAdd(line) {
		if err := c.mark(id, func(n *NodeState) { n.Rules = true }); err != nil {
			return "", err
		}
	}
	out, err := c.sh(ctx, id, line)
	if err == nil && isRuleDelete(line) {
		left, lerr := c.sh(ctx, id, kchaosRulesCmd)
		if lerr == nil && strings.TrimSpace(left) == "0" {
			_ = c.mark(id, func(n *NodeState) { n.Rules = false })
		}
	}
	return out, err
}

// kchaosRulesCmd counts the installed rules tagged with the kchaos comment.
const kchaosRulesCmd = `iptables -w 5 -S | grep -c -- '--comment "\?kchaos"\? ' ; true`

// Kill sends SIGKILL to the node's Kafka process.
func (c *Cluster) Kill(ctx context.Context, id int32) error { return c.Signal(ctx, id, "KILL") }

// Signal sends sig to the node's Kafka process (pkill -<sig> -f).
func (c *Cluster) Signal(ctx context.Context, id int32, sig string) error {
	sig = strings.TrimPrefix(strings.ToUpper(sig), "SIG")
	if !signals[sig] {
		return fmt.Errorf("node %d: signal %q: want one of KILL, TERM, INT, HUP, STOP, CONT", id, sig)
	}
	switch sig {
	case "KILL", "TERM", "INT":
		if err := c.mark(id, func(n *NodeState) { n.Down = true }); err != nil {
			return err
		}
	case "STOP":
		if err := c.mark(id, func(n *NodeState) { n.Paused = true }); err != nil {
			return err
		}
	}
	if _, err := c.sh(ctx, id, signalCmd(sig, c.spec.Service.Process)); err != nil {
		return fmt.Errorf("signal %s: %w", sig, err)
	}
	if sig == "CONT" {
		return c.mark(id, func(n *NodeState) { n.Paused = false })
	}
	return nil
}

// Pause freezes the node's Kafka process (SIGSTOP).
func (c *Cluster) Pause(ctx context.Context, id int32) error { return c.Signal(ctx, id, "STOP") }

// Resume thaws it (SIGCONT).
func (c *Cluster) Resume(ctx context.Context, id int32) error { return c.Signal(ctx, id, "CONT") }

// State reports whether a process matches service.process and whether it
// is stopped (state T in /proc/<pid>/stat).
func (c *Cluster) State(ctx context.Context, id int32) (cluster.NodeState, error) {
	out, err := c.sh(ctx, id, stateCmd(c.spec.Service.Process))
	if err != nil {
		return cluster.NodeState{}, err
	}
	running, paused := parseState(out)
	return cluster.NodeState{Running: running, Paused: paused}, nil
}

// Start runs service.start and waits (at most 30 s) until the process runs.
func (c *Cluster) Start(ctx context.Context, id int32) error {
	if out, err := c.sh(ctx, id, c.spec.Service.Start); err != nil {
		return fmt.Errorf("start: %w: %s", err, strings.TrimSpace(out))
	}
	if err := c.waitState(ctx, id, true, 30*time.Second); err != nil {
		return err
	}
	return c.mark(id, func(n *NodeState) { n.Down, n.Paused = false, false })
}

// Stop runs service.stop; a process still there after timeout gets SIGKILL.
func (c *Cluster) Stop(ctx context.Context, id int32, timeout time.Duration) error {
	if err := c.mark(id, func(n *NodeState) { n.Down = true }); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, timeout+10*time.Second)
	out, err := c.sh(sctx, id, c.spec.Service.Stop)
	cancel()
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("stop: %w: %s", err, strings.TrimSpace(out))
	}
	if c.waitState(ctx, id, false, timeout) == nil {
		return nil
	}
	if _, err := c.sh(ctx, id, signalCmd("KILL", c.spec.Service.Process)); err != nil {
		return err
	}
	return c.waitState(ctx, id, false, 10*time.Second)
}

func (c *Cluster) waitState(ctx context.Context, id int32, running bool, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		st, err := c.State(ctx, id)
		if err == nil && st.Running == running {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %d: process %q running=%v after %s, want %v", id, c.spec.Service.Process, st.Running, limit, running)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
