package network

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
)

// ruleComment tags every iptables rule kchaos adds, so that a heal removes
// exactly those and never a rule that Docker or a user put there.
const ruleComment = "kchaos"

// dropScript is the shell script that makes node id drop all packets to and
// from peers. Rules are inserted at the top of INPUT and OUTPUT so that no
// ACCEPT rule before them can let traffic through.
func dropScript(e *nemesis.Env, id int32, peers []int32) (string, error) {
	lines := []string{"set -e"}
	for _, p := range peers {
		n, ok := e.Cluster.Node(p)
		if !ok {
			return "", fmt.Errorf("node %d: peer %d is not in this run", id, p)
		}
		ip, err := netip.ParseAddr(n.IP)
		if err != nil {
			return "", fmt.Errorf("node %d: bad IP %q", p, n.IP)
		}
		tag := "-m comment --comment " + ruleComment + " -j DROP"
		lines = append(lines,
			fmt.Sprintf("iptables -w 5 -I INPUT -s %s %s", ip, tag),
			fmt.Sprintf("iptables -w 5 -I OUTPUT -d %s %s", ip, tag))
	}
	return strings.Join(lines, "\n"), nil
}

var safeArg = regexp.MustCompile(`^[A-Za-z0-9./:_-]+$`)

// kchaosRules picks, from `iptables -S` output, the rules kchaos added and
// returns the arguments that delete each (-A becomes -D).
func kchaosRules(out string) ([][]string, error) { return taggedRules(out, ruleComment) }

// taggedRules picks the rules whose comment is exactly tag: RuleComment
// (partitions and client cuts) and LossComment (netem's loss) are told
// apart, so that each heal removes its own rules only.
func taggedRules(out, tag string) ([][]string, error) {
	var rules [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "-A" {
			continue
		}
		i := slices.Index(f, "--comment")
		if i < 0 || i+1 >= len(f) || strings.Trim(f[i+1], `"`) != tag {
			continue
		}
		f[i+1] = tag
		for _, a := range f {
			if !safeArg.MatchString(a) {
				return nil, fmt.Errorf("unexpected iptables rule %q", line)
			}
		}
		f[0] = "-D"
		rules = append(rules, f)
	}
	return rules, nil
}

// ListRules returns the kchaos rules installed on node id (as -D argument
// lists). Tests use it to check that a heal left none.
func ListRules(ctx context.Context, e *nemesis.Env, id int32) ([][]string, error) {
	return listTagged(ctx, e, id, ruleComment)
}

func listTagged(ctx context.Context, e *nemesis.Env, id int32, tag string) ([][]string, error) {
	out, err := e.Cluster.Exec(ctx, id, "iptables", "-w", "5", "-S")
	if err != nil {
		return nil, err
	}
	return taggedRules(out, tag)
}

// removeRules deletes node id's kchaos rules and returns how many.
func removeRules(ctx context.Context, e *nemesis.Env, id int32) (int, error) {
	return removeTagged(ctx, e, id, ruleComment)
}

// removeTagged deletes node id's rules tagged tag and returns how many.
func removeTagged(ctx context.Context, e *nemesis.Env, id int32, tag string) (int, error) {
	rules, err := listTagged(ctx, e, id, tag)
	if err != nil || len(rules) == 0 {
		return 0, err
	}
	lines := []string{"set -e"}
	for _, r := range rules {
		lines = append(lines, "iptables -w 5 "+strings.Join(r, " "))
	}
	if _, err := e.Cluster.Exec(ctx, id, "sh", "-c", strings.Join(lines, "\n")); err != nil {
		return 0, err
	}
	return len(rules), nil
}

// healPartitions removes the kchaos rules of every node of the run. Nodes
// that are down or paused cannot be reached: they are remembered and
// cleaned when the nemesis starts or resumes them (retryPending).
func healPartitions(ctx context.Context, e *nemesis.Env) (removed int, pending []int32, err error) {
	s := state(e)
	s.mu.Lock()
	s.cutFromController, s.clientCut = nil, nil
	s.mu.Unlock()
	pending, err = healEachNode(ctx, e, true, func(id int32) error {
		n, rerr := removeRules(ctx, e, id)
		removed += n
		return rerr
	})
	return removed, pending, err
}

// healEachNode runs remove on every node that runs unpaused. A node it
// cannot reach (paused or stopped) or where remove fails stays pending,
// for retryPending to clear when it runs again. With settle, a node
// remove succeeded on is no longer pending: the partition heal settles;
// netem's leaves a pending mark alone, so that it never clears one a
// partition rule left.
func healEachNode(ctx context.Context, e *nemesis.Env, settle bool, remove func(id int32) error) (pending []int32, err error) {
	var errs []error
	for _, id := range e.AllNodes() {
		if !e.RunsUnpaused(ctx, id) {
			setPending(e, id, true)
			pending = append(pending, id)
			continue
		}
		if rerr := remove(id); rerr != nil {
			setPending(e, id, true)
			pending = append(pending, id)
			errs = append(errs, rerr)
			continue
		}
		if settle {
			setPending(e, id, false)
		}
	}
	return pending, errors.Join(errs...)
}

// retryPending removes the rules (and netem's qdiscs and loss rules) a heal could not reach
// on node id, now that it runs again. A killed node restarts in a fresh network namespace
// without rules; the retry is then a cheap no-op.
func retryPending(ctx context.Context, e *nemesis.Env, id int32) error {
	s := state(e)
	s.mu.Lock()
	p := s.pending[id]
	s.mu.Unlock()
	if !p {
		return nil
	}
	if _, err := removeRules(ctx, e, id); err != nil {
		return err
	}
	if _, err := removeQdiscs(ctx, e, id); err != nil {
		return err
	}
	if _, err := removeLossRules(ctx, e, id); err != nil {
		return err
	}
	setPending(e, id, false)
	return nil
}

func setPending(e *nemesis.Env, id int32, on bool) {
	s := state(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = withIDs(s.pending, []int32{id}, on)
}

// pendingNodes lists the nodes whose kchaos rules a heal could not remove yet.
func pendingNodes(e *nemesis.Env) []int32 {
	s := state(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.pending))
}

// rootQdiscs maps each device to its root qdisc's handle, from `tc qdisc
// show` ("qdisc htb ca05: dev eth0 root refcnt 3 ...").
func rootQdiscs(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		fs := strings.Fields(l)
		if len(fs) < 6 || fs[0] != "qdisc" || fs[3] != "dev" || fs[5] != "root" {
			continue
		}
		m[fs[4]] = fs[2]
	}
	return m
}

// netemCapable: netem runs only where the nodes' network namespaces are
// the run's own (cluster.CapNetem). Scenario validation refuses it before
// the run on a backend without; this is the net for a hand-built Env.
func netemCapable(e *nemesis.Env) bool {
	return e.Cluster.Capabilities().Has(cluster.NewCaps(cluster.CapNetem))
}

// removeQdiscs deletes node id's kchaos netem roots (with their class,
// netem and filters) and returns how many.
func removeQdiscs(ctx context.Context, e *nemesis.Env, id int32) (int, error) {
	if !netemCapable(e) {
		return 0, nil // netem is refused there: nothing to remove, and tc may be missing
	}
	out, err := e.Cluster.Exec(ctx, id, "tc", "qdisc", "show")
	if err != nil {
		return 0, err
	}
	var lines []string
	for dev, h := range rootQdiscs(out) {
		if h == netemRoot && safeArg.MatchString(dev) {
			lines = append(lines, fmt.Sprintf("tc qdisc del dev %s root handle %s", dev, netemRoot))
		}
	}
	if len(lines) == 0 {
		return 0, nil
	}
	slices.Sort(lines)
	if _, err := e.Cluster.Exec(ctx, id, "sh", "-c", strings.Join(append([]string{"set -e"}, lines...), "\n")); err != nil {
		return 0, err
	}
	return len(lines), nil
}

// ListQdiscs returns node id's kchaos netem roots as "dev handle". Tests
// use it to check that a heal left none.
func ListQdiscs(ctx context.Context, e *nemesis.Env, id int32) ([]string, error) {
	out, err := e.Cluster.Exec(ctx, id, "tc", "qdisc", "show")
	if err != nil {
		return nil, err
	}
	var l []string
	for dev, h := range rootQdiscs(out) {
		if h == netemRoot {
			l = append(l, dev+" "+h)
		}
	}
	slices.Sort(l)
	return l, nil
}

// healNetem removes the kchaos qdiscs and loss rules of every node of the
// run (never a partition's or a client cut's rules: their comment is
// another). Nodes that are down or paused are remembered and cleaned when
// the nemesis starts or resumes them (retryPending); a Docker node
// started again has a fresh network namespace anyway.
func healNetem(ctx context.Context, e *nemesis.Env) (removed, rules int, pending []int32, err error) {
	if !netemCapable(e) {
		return 0, 0, nil, nil
	}
	pending, err = healEachNode(ctx, e, false, func(id int32) error {
		n, rerr := removeQdiscs(ctx, e, id)
		removed += n
		r, lerr := removeLossRules(ctx, e, id)
		rules += r
		return errors.Join(rerr, lerr)
	})
	return removed, rules, pending, err
}
