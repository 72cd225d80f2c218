package ssh

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// removeRulesCmd deletes every iptables rule tagged with the kchaos
// comment (and only those) and prints how many it deleted.
const removeRulesCmd = `n=0; iptables -w 5 -S | grep -- '--comment "\?kchaos"\? ' | sed 's/^-A /-D /' > /tmp/.kchaos-rules.$$ || true
while read -r r; do eval "iptables -w 5 $r" && n=$((n+1)); done < /tmp/.kchaos-rules.$$
rm -f /tmp/.kchaos-rules.$$; echo $n`

// Clean undoes on spec's hosts what kchaos may have left: on every host it
// deletes every kchaos-tagged iptables rule and sends SIGCONT to a stopped
// Kafka; it starts Kafka (service.start) on every node the state file
// records as killed or stopped. It returns one line per action and clears
// the state file once nothing is left.
func Clean(ctx context.Context, spec Spec) ([]string, error) {
	spec.Defaults()
	if errs := spec.Validate("cluster"); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	path := StatePath(&spec)
	st, err := ReadState(path)
	if err != nil {
		return nil, err
	}
	d, err := newDialer(spec.SSH)
	if err != nil {
		return nil, err
	}
	defer d.close()
	c := &Cluster{spec: spec, d: d, addr: map[int32]string{}}
	c.state = &stateFile{paths: []string{path}, s: *st}
	for _, h := range spec.Hosts {
		c.addr[h.ID] = sshAddr(h.Addr)
	}
	var did []string
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(c.addr)) {
		lines, err := c.cleanNode(ctx, id, st.Nodes[id])
		did = append(did, lines...)
		if err != nil {
			errs = append(errs, fmt.Errorf("node %d (%s): %w", id, c.addr[id], err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return did, err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return did, err
	}
	return did, nil
}

func (c *Cluster) cleanNode(ctx context.Context, id int32, rec *NodeState) ([]string, error) {
	var did []string
	out, err := c.sh(ctx, id, removeRulesCmd)
	if err != nil {
		return did, fmt.Errorf("iptables: %w", err)
	}
	if n := strings.TrimSpace(out); n != "0" {
		did = append(did, fmt.Sprintf("node %d: removed %s kchaos iptable rule(s)", id, n))
	}
	_ = c.mark(id, func(n *NodeState) { n.Rules = false })
	s, err := c.State(ctx, id)
	if err != nil {
		return did, err
	}
	if s.Paused {
		if err := c.Resume(ctx, id); err != nil {
			return did, err
		}
		did = append(did, fmt.Sprintf("node %d: resumed Kafka (SIGCONT)", id))
	}
	_ = c.mark(id, func(n *NodeState) { n.Paused = false })
	if rec != nil && rec.Down {
		if !s.Running {
			if err := c.Start(ctx, id); err != nil {
				return did, err
			}
			did = append(did, fmt.Sprintf("node %d: started Kafka (%s)", id, c.spec.Service.Start))
		}
		_ = c.mark(id, func(n *NodeState) { n.Down = false })
	} else if !s.Running {
		did = append(did, fmt.Sprintf("node %d: Kafka does not run, and no kchaos run stopped it: left alone", id))
	}
	return did, nil
}
