package network

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/nemesis"
)

// probeScript connects from inside a node to addr with bash's /dev/tcp,
// bounded by timeout(1), and prints the exit code and bash's message. It
// always exits 0 so that every backend's Exec returns the output.
func probeScript(addr netip.AddrPort, limit time.Duration) string {
	secs := fmt.Sprintf("%.1f", limit.Seconds())
	return fmt.Sprintf(`out=$(timeout %s bash -c ': 3<>/dev/tcp/%s/%d' 2>&1); echo "rc=$? $out"`,
		secs, addr.Addr(), addr.Port())
}

// parseProbe reads probeScript's output.
func parseProbe(out string) (nemesis.Reach, error) {
	out = strings.TrimSpace(out)
	rc, msg, _ := strings.Cut(strings.TrimPrefix(out, "rc="), " ")
	low := strings.ToLower(msg)
	switch {
	case !strings.HasPrefix(out, "rc="):
		return "", fmt.Errorf("probe: unexpected output %q", out)
	case rc == "0":
		return nemesis.ReachOpen, nil
	case rc == "124":
		return nemesis.ReachDropped, nil
	case strings.Contains(low, "refused"):
		return nemesis.ReachRefused, nil
	case strings.Contains(low, "not permitted"):
		return nemesis.ReachDropped, nil // EPERM: a local OUTPUT rule dropped the SYN
	case strings.Contains(low, "no route"), strings.Contains(low, "unreachable"):
		return nemesis.ReachUnreachable, nil
	}
	return "", fmt.Errorf("probe: %s", out)
}

// probe connects from node from to addr.
func probe(ctx context.Context, e *nemesis.Env, from int32, addr netip.AddrPort, limit time.Duration) (nemesis.Reach, error) {
	out, err := e.Cluster.Exec(ctx, from, "sh", "-c", probeScript(addr, limit))
	if err != nil {
		return "", err
	}
	return parseProbe(out)
}

// ruledIPs are the addresses node id's kchaos rules name.
func ruledIPs(ctx context.Context, e *nemesis.Env, id int32) map[string]bool {
	out := map[string]bool{}
	rules, _ := ListRules(ctx, e, id)
	for _, r := range rules {
		for i, a := range r {
			if (a == "-s" || a == "-d") && i+1 < len(r) {
				ip, _, _ := strings.Cut(r[i+1], "/")
				out[ip] = true
			}
		}
	}
	return out
}

// Prove checks, from inside each node that took rules, that a TCP connect
// to a cut peer's listener does not get through, and, as a control that
// the probe can see a link at all, that one to a peer it keeps does.
func (f *partitionFault) Prove(ctx context.Context, e *nemesis.Env) (map[string]any, error) {
	if len(f.touched) == 0 {
		return nil, fmt.Errorf("no node took rules (skipped %v)", f.skipped)
	}
	type res struct {
		cut, control string
		err          error
	}
	all := e.AllNodes()
	rs := nemesis.Parallel(f.touched, func(id int32) res {
		peer := f.applied[id][0]
		_, ap, err := e.ListenAddr(peer)
		if err != nil {
			return res{err: err}
		}
		r, err := probe(ctx, e, id, ap, nemesis.ProbeCut)
		if err != nil {
			return res{err: fmt.Errorf("node %d: probe to %d: %w", id, peer, err)}
		}
		out := res{cut: fmt.Sprintf("%d->%d %s", id, peer, r)}
		if r.Passes() {
			out.err = fmt.Errorf("node %d still reaches cut peer %d (%s)", id, peer, r)
			return out
		}
		// The control: a peer no kchaos rule on this node drops (an
		// earlier partition may still cut others), tried in order until
		// one answers.
		dropped := ruledIPs(ctx, e, id)
		var tried []string
		for _, c := range all {
			n, cp, err := e.ListenAddr(c)
			if err != nil {
				return res{err: err}
			}
			if c == id || slices.Contains(f.applied[id], c) || dropped[n.IP] || !e.RunsUnpaused(ctx, c) {
				continue
			}
			r, err := probe(ctx, e, id, cp, nemesis.ProbeControl)
			if err != nil {
				out.err = fmt.Errorf("node %d: control probe to %d: %w", id, c, err)
				return out
			}
			tried = append(tried, fmt.Sprintf("%d->%d %s", id, c, r))
			if r.Passes() {
				out.control = tried[len(tried)-1]
				return out
			}
		}
		if len(tried) > 0 {
			out.err = fmt.Errorf("node %d: control probes to uncut peers fail too (%s): the probe proves nothing", id, strings.Join(tried, ", "))
		}
		return out
	})
	proof := map[string]any{}
	var cuts, controls []string
	var errs []error
	for _, r := range rs {
		if r.cut != "" {
			cuts = append(cuts, r.cut)
		}
		if r.control != "" {
			controls = append(controls, r.control)
		}
		errs = append(errs, r.err)
	}
	proof["cut"] = cuts
	if len(controls) > 0 {
		proof["control"] = controls
	}
	return proof, errors.Join(errs...)
}
