package network

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/nemesis"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// cutClientsKind cuts the client side from brokers with iptables rules.
var cutClientsKind = nemesis.Kind{Name: histories.FCutClients, Needs: cluster.NewCaps(cluster.CapPartition, cluster.CapClientCut),
	New: func() nemesis.Params { return &cutClientsParams{} },
	// A client cut is iptables rules tagged kchaos, as a partition is:
	// heal partition removes both.
	Heal: partitionHeal, Color: "#2c5d8f", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Proof: nemesis.Proved,
	AvoidReads: unreachableReads,
	Draw:       &nemesis.Draw{Rank: 5}}

// cutClientsParams: a client cut takes only its target.
type cutClientsParams struct{}

func (*cutClientsParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
}

func (*cutClientsParams) Build(st nemesis.Step) nemesis.Fault { return &cutClients{target: st.Target} }

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
// nemesis's state reads go to the brokers not cut (nemesis/state.go readers, told by Kind.AvoidReads), and
// the observer records what the others tell it (a cut broker's log end
// offset goes missing from its samples). Only the client port is matched,
// from the client side's address only, so inter-broker traffic on the same
// port (it comes from the brokers' own addresses) passes.
type cutClients struct {
	target *nemesis.Target
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
func clientAddrs(ctx context.Context, e *nemesis.Env) ([]netip.Addr, error) {
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
	tag := "-m comment --comment " + ruleComment + " -j DROP"
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
func brokerTargets(ctx context.Context, e *nemesis.Env, t *nemesis.Target, what string) ([]int32, error) {
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

func (f *cutClients) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	addrs, err := clientAddrs(ctx, e)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot cut clients: %w", err)
	}
	ids, err := brokerTargets(ctx, e, f.target, histories.FCutClients)
	if err != nil {
		return nil, nil, err
	}
	f.addrs = addrs
	// client_addr: the kchaos host's; client_addrs: every address cut.
	details := map[string]any{"client_addr": addrs[0].String(), "client_addrs": addrStrings(addrs)}
	var errs []error
	ports := map[string]uint16{}
	for _, id := range ids {
		if !e.RunsUnpaused(ctx, id) {
			// Unlike a partition, no peer's rule cuts this link for it.
			errs = append(errs, fmt.Errorf("broker %d is down or paused: cannot cut its clients", id))
			continue
		}
		_, ap, err := e.ListenAddr(id)
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
	markClientCut(e, f.touched, true)
	return f.touched, details, errors.Join(errs...)
}

// unreachableReads is cut-clients' Kind.AvoidReads: the state reads skip
// the brokers it cut from the kchaos host (its requests are dropped too).
func unreachableReads(e *nemesis.Env) (skip, last map[int32]bool) {
	s := state(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCut, nil
}

// markClientCut records brokers the kchaos host can (not) reach.
func markClientCut(e *nemesis.Env, ids []int32, on bool) {
	s := state(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCut = withIDs(s.clientCut, ids, on)
}

// Heal deletes exactly the rules Inject added (`heal: partition` and the
// final heal remove them with every other kchaos rule).
func (f *cutClients) Heal(ctx context.Context, e *nemesis.Env) error {
	var errs []error
	for _, id := range f.touched {
		_, ap, err := e.ListenAddr(id)
		if err == nil {
			_, err = e.Cluster.Exec(ctx, id, "sh", "-c", clientRules("-D", f.addrs, ap.Port()))
		}
		errs = append(errs, err)
	}
	markClientCut(e, f.touched, false)
	return errors.Join(errs...)
}

// Prove connects from the kchaos host to each cut broker's client port,
// which must not get through, and, as a control, to a broker not cut,
// which must.
func (f *cutClients) Prove(ctx context.Context, e *nemesis.Env) (map[string]any, error) {
	if len(f.touched) == 0 {
		return nil, errors.New("no broker took the rules")
	}
	type res struct {
		line string
		err  error
	}
	rs := nemesis.Parallel(f.touched, func(id int32) res {
		n, _, err := e.ListenAddr(id)
		if err != nil {
			return res{err: err}
		}
		r, _ := e.HostReach(ctx, n.Addr(), nemesis.ProbeCut)
		out := res{line: fmt.Sprintf("host->%d %s", id, r)}
		if r.Passes() {
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
	st := state(e)
	st.mu.Lock()
	cut := st.clientCut
	st.mu.Unlock()
	for _, b := range e.Cluster.Brokers() {
		if cut[b.ID] || !e.RunsUnpaused(ctx, b.ID) {
			continue
		}
		r, msg := e.HostReach(ctx, b.Addr(), nemesis.ProbeControl)
		proof["control"] = fmt.Sprintf("host->%d %s", b.ID, r)
		if !r.Passes() {
			errs = append(errs, fmt.Errorf("control: broker %d (not cut) is %s from the kchaos host too (%s): the probe proves nothing", b.ID, r, msg))
		}
		break
	}
	return proof, errors.Join(errs...)
}
