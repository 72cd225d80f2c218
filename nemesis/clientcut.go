package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// cutClientsKind cuts the client side from brokers with iptables rules.
var cutClientsKind = Kind{Name: histories.FCutClients, Needs: cluster.NewCaps(cluster.CapPartition, cluster.CapClientCut),
	New: func() Params { return &cutClientsParams{} },
	// A client cut is iptables rules tagged kchaos, as a partition is:
	// heal partition removes both.
	Heal: partitionHeal, Color: "#2c5d8f", LosesAcked: No, MovesLeaders: No, Proof: Proved,
	Draw: &Draw{Rank: 5}}

// cutClientsParams: a client cut takes only its target.
type cutClientsParams struct{}

func (*cutClientsParams) Validate(p string, st *Step, add AddFunc) { ValidateNodeTarget(p, st, add) }

func (*cutClientsParams) Build(st Step) Fault { return &cutClients{target: st.Target} }

// cutClients drops, at each target broker, the packets between the client
// side and the broker's client port, both ways: the workload's producers
// and consumers lose that broker while its replication and controller
// links stay up, so the client-side half of a failure can be told from a
// broker that is gone.
//
// The client side is every address the run's clients connect from
// (cluster.ClientSide.ClientAddrs): the kchaos host's (the Go clients, the
// admin client, the observer, the request proxy's dials) and, on Docker,
// each client container's that runs at injection (the Java driver's
// JVMs, beside the brokers). A client container started while the cut
// holds (a group member's restart) is not cut. So a cut broker is cut from kchaos's own reads as well: the
// nemesis's state reads go to the brokers not cut (state.go readers), and
// the observer records what the others tell it (a cut broker's log end
// offset goes missing from its samples). Only the client port is matched,
// from the client side's address only, so inter-broker traffic on the same
// port (it comes from the brokers' own addresses) passes.
type cutClients struct {
	target *Target
	// What Inject did, for Heal and Prove.
	addrs   []netip.Addr
	touched []int32
}

func (f *cutClients) Name() string { return histories.FCutClients }

func (f *cutClients) Spec() map[string]any { return map[string]any{"target": f.target} }

// errNoClientSide refuses a backend that cannot say where kchaos's
// connections come from.
var errNoClientSide = errors.New("the backend does not say which address kchaos's own connections come from as the nodes see it " +
	"(the SSH backend: the kchaos host's address on the hosts' network is not known to kchaos, and this fault is untested there, " +
	"so it is refused rather than guessed)")

// clientAddrs are the client side's addresses as the nodes see them: the
// kchaos host's first, then each client container's.
func (e *Env) clientAddrs(ctx context.Context) ([]netip.Addr, error) {
	cs, ok := e.Cluster.(cluster.ClientSide)
	if !ok {
		return nil, errNoClientSide
	}
	addrs, err := cs.ClientAddrs(ctx)
	if err == nil && len(addrs) == 0 {
		err = errors.New("the backend names no client address")
	}
	return addrs, err
}

// clientRules is the script that adds (op -I) or deletes (op -D) the
// rules that cut each of addrs from a broker's client port.
func clientRules(op string, addrs []netip.Addr, port uint16) string {
	tag := "-m comment --comment " + RuleComment + " -j DROP"
	lines := []string{"set -e"}
	for _, addr := range addrs {
		lines = append(lines,
			fmt.Sprintf("iptables -w 5 %s INPUT -s %s -p tcp --dport %d %s", op, addr, port, tag),
			fmt.Sprintf("iptables -w 5 %s OUTPUT -d %s -p tcp --sport %d %s", op, addr, port, tag))
	}
	return strings.Join(lines, "\n")
}

// addrStrings is addrs as strings, for a step's details.
func addrStrings(addrs []netip.Addr) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out
}

// brokerTargets resolves a target that must name running brokers.
func (e *Env) brokerTargets(ctx context.Context, t *Target, what string) ([]int32, error) {
	ids, err := e.Resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !slices.Contains(e.BrokerIDs(), id) {
			return nil, fmt.Errorf("%s: node %d is a controller: clients talk to brokers only", what, id)
		}
	}
	return ids, nil
}

func (f *cutClients) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	addrs, err := e.clientAddrs(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot cut clients: %w", err)
	}
	ids, err := e.brokerTargets(ctx, f.target, histories.FCutClients)
	if err != nil {
		return nil, nil, err
	}
	f.addrs = addrs
	// client_addr: the kchaos host's; client_addrs: every address cut.
	details := map[string]any{"client_addr": addrs[0].String(), "client_addrs": addrStrings(addrs)}
	var errs []error
	ports := map[string]uint16{}
	for _, id := range ids {
		if !e.runsUnpaused(ctx, id) {
			// Unlike a partition, no peer's rule cuts this link for it.
			errs = append(errs, fmt.Errorf("broker %d is down or paused: cannot cut its clients", id))
			continue
		}
		_, ap, err := e.listenAddr(id)
		if err == nil {
			_, err = e.Cluster.Exec(ctx, id, "sh", "-c", clientRules("-I", addrs, ap.Port()))
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ports[fmt.Sprint(id)] = ap.Port()
		f.touched = append(f.touched, id)
	}
	details["ports"] = ports
	e.markClientCut(f.touched, true)
	return f.touched, details, errors.Join(errs...)
}

// markClientCut records brokers the kchaos host can (not) reach.
func (e *Env) markClientCut(ids []int32, on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := maps.Clone(e.clientCut)
	if next == nil {
		next = map[int32]bool{}
	}
	for _, id := range ids {
		if on {
			next[id] = true
		} else {
			delete(next, id)
		}
	}
	e.clientCut = next
}

// Heal deletes exactly the rules Inject added (`heal: partition` and the
// final heal remove them with every other kchaos rule).
func (f *cutClients) Heal(ctx context.Context, e *Env) error {
	var errs []error
	for _, id := range f.touched {
		_, ap, err := e.listenAddr(id)
		if err == nil {
			_, err = e.Cluster.Exec(ctx, id, "sh", "-c", clientRules("-D", f.addrs, ap.Port()))
		}
		errs = append(errs, err)
	}
	e.markClientCut(f.touched, false)
	return errors.Join(errs...)
}

// Prove connects from the kchaos host to each cut broker's client port,
// which must not get through, and, as a control, to a broker not cut,
// which must.
func (f *cutClients) Prove(ctx context.Context, e *Env) (map[string]any, error) {
	if len(f.touched) == 0 {
		return nil, errors.New("no broker took the rules")
	}
	type res struct {
		line string
		err  error
	}
	rs := parallel(f.touched, func(id int32) res {
		n, _, err := e.listenAddr(id)
		if err != nil {
			return res{err: err}
		}
		r, _ := e.hostReach(ctx, n.Addr(), probeCut)
		out := res{line: fmt.Sprintf("host->%d %s", id, r)}
		if r.passes() {
			out.err = fmt.Errorf("the kchaos host still reaches broker %d (%s)", id, r)
		}
		return out
	})
	var lines []string
	var errs []error
	for _, r := range rs {
		lines = append(lines, r.line)
		errs = append(errs, r.err)
	}
	proof := map[string]any{"cut": lines}
	e.mu.Lock()
	cut := e.clientCut
	e.mu.Unlock()
	for _, b := range e.Cluster.Brokers() {
		if cut[b.ID] || !e.runsUnpaused(ctx, b.ID) {
			continue
		}
		r, msg := e.hostReach(ctx, b.Addr(), probeControl)
		proof["control"] = fmt.Sprintf("host->%d %s", b.ID, r)
		if !r.passes() {
			errs = append(errs, fmt.Errorf("control: broker %d (not cut) is %s from the kchaos host too (%s): the probe proves nothing", b.ID, r, msg))
		}
		break
	}
	return proof, errors.Join(errs...)
}
