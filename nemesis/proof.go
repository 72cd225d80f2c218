package nemesis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
)

// Prover is implemented by faults that can show that they hold. Env.Inject
// (which the Runner uses for every fault step) calls Prove right after a
// successful Inject and records the proof in the op's details under
// "proof"; an error means the fault did not take effect: the op completes
// info, and the step fails with a *NoEffectError. A fault with nothing to
// prove for this op returns nil, nil. Another fault (a read-only disk)
// proves itself by implementing it too: Prove may read what its Inject
// kept in the fault value.
type Prover interface {
	Prove(ctx context.Context, env *Env) (proof map[string]any, err error)
}

// NoEffectError says an injected fault does not hold: its proof failed. A
// scripted schedule stops at it; a random one goes on and reports it at
// the end (Runner.Run), so the run's verdict cannot be a silent pass.
type NoEffectError struct {
	Fault string
	Err   error
}

func (e *NoEffectError) Error() string { return "no effect: " + e.Err.Error() }
func (e *NoEffectError) Unwrap() error { return e.Err }

// prove runs f's proof, if it has one, and adds it to the details.
func (e *Env) prove(ctx context.Context, f Fault, details map[string]any) (map[string]any, error) {
	p, ok := f.(Prover)
	if !ok {
		return details, nil
	}
	begin := time.Now()
	proof, err := p.Prove(ctx, e)
	if proof == nil && err == nil {
		return details, nil
	}
	if details == nil {
		details = map[string]any{}
	}
	if proof == nil {
		proof = map[string]any{}
	}
	proof["took_ms"] = time.Since(begin).Milliseconds()
	details["proof"] = proof
	if err != nil {
		return details, &NoEffectError{Fault: f.Name(), Err: err}
	}
	return details, nil
}

// Dialer is implemented by backends (and the tests' in-memory fake) that
// route the proofs' connections from the kchaos host themselves; others
// get a plain TCP dial to the node's address.
type Dialer interface {
	DialFromHost(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error)
}

// DialHost connects from the kchaos host to addr, through the backend's
// Dialer if it has one, within limit: the proofs' dial from the kchaos
// host (nemesis/process's kill and pause, nemesis/network's client cut
// and netem's client links).
func (e *Env) DialHost(ctx context.Context, addr string, limit time.Duration) (net.Conn, error) {
	if d, ok := e.Cluster.(Dialer); ok {
		return d.DialFromHost(ctx, addr, limit)
	}
	dctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var d net.Dialer
	return d.DialContext(dctx, "tcp", addr)
}

// Reach is what a TCP connect found.
type Reach string

const (
	ReachOpen        Reach = "open"        // connected
	ReachRefused     Reach = "refused"     // the peer answered with a reset: packets pass
	ReachDropped     Reach = "dropped"     // no answer within the limit, or a local rule refused to send
	ReachUnreachable Reach = "unreachable" // no route, or the address did not answer ARP
)

// Passes reports whether packets got through (a reset is an answer):
// exported for the rooms whose proofs judge a probe (nemesis/network).
func (r Reach) Passes() bool { return r == ReachOpen || r == ReachRefused }

// Probe limits: a dropped SYN is retried by the kernel for a minute, so a
// probe that does not connect within these counts as dropped. A proof
// delays the schedule's next step by about the cut probe's limit (plus an
// exec), so it is short: a running peer on the same network answers a SYN
// in well under a millisecond; the control, which guards against a probe
// that sees nothing, gets longer. Exported for the rooms whose proofs
// probe links (nemesis/network), so that every proof waits alike.
const (
	ProbeCut     = 500 * time.Millisecond
	ProbeControl = 2 * time.Second
)

// ListenAddr is node id's Kafka listener (brokers 9092, controllers
// 9093): what the rooms' proofs connect to (nemesis/process's kill and
// pause, nemesis/network's).
func (e *Env) ListenAddr(id int32) (cluster.Node, netip.AddrPort, error) {
	n, ok := e.Cluster.Node(id)
	if !ok {
		return n, netip.AddrPort{}, fmt.Errorf("node %d is not in this run", id)
	}
	ap, err := netip.ParseAddrPort(n.Addr())
	if err != nil {
		return n, ap, fmt.Errorf("node %d: address %q: %w", id, n.Addr(), err)
	}
	return n, ap, nil
}

// HostReach connects from the kchaos host to addr: the probe of the
// rooms' proofs from the host (nemesis/process's kill, nemesis/network's
// client cut).
func (e *Env) HostReach(ctx context.Context, addr string, limit time.Duration) (Reach, string) {
	c, err := e.DialHost(ctx, addr, limit)
	if err == nil {
		_ = c.Close()
		return ReachOpen, ""
	}
	msg := err.Error()
	var ne net.Error
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "refused"):
		return ReachRefused, msg
	case strings.Contains(low, "no route"), strings.Contains(low, "unreachable"):
		return ReachUnreachable, msg
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return ReachDropped, msg
	}
	return ReachDropped, msg
}

// Parallel runs fn for each id at once and returns the results in id
// order: the proofs' way of probing every node together, exported for
// the rooms' proofs (nemesis/network).
func Parallel[T any](ids []int32, fn func(id int32) T) []T {
	out := make([]T, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fn(id)
		}()
	}
	wg.Wait()
	return out
}
