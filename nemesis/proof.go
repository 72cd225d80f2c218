package nemesis

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
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
// Dialer if it has one, within limit: the kill and pause proofs' dial,
// exported for the rooms whose proofs connect from the kchaos host too
// (nemesis/network's client cut and netem's client links).
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
// 9093): what the kill and pause proofs connect to, exported for the
// rooms whose proofs connect to it too (nemesis/network).
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

// HostReach connects from the kchaos host to addr: the kill proof's
// probe, exported for the rooms that probe from the host too
// (nemesis/network's client cut).
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

// kafkaAnswers sends an ApiVersions v0 request to addr from the kchaos
// host and waits at most limit for the first bytes of an answer. A frozen
// process does not answer, though its kernel still completes the TCP
// handshake (connected is then true).
func (e *Env) kafkaAnswers(ctx context.Context, addr string, limit time.Duration) (connected, answered bool, err error) {
	c, err := e.DialHost(ctx, addr, limit)
	if err != nil {
		return false, false, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	const clientID = "kchaos-proof"
	req := binary.BigEndian.AppendUint32(nil, uint32(2+2+4+2+len(clientID)))
	req = binary.BigEndian.AppendUint16(req, 18) // ApiVersions
	req = binary.BigEndian.AppendUint16(req, 0)
	req = binary.BigEndian.AppendUint32(req, 1) // correlation id
	req = binary.BigEndian.AppendUint16(req, uint16(len(clientID)))
	req = append(req, clientID...)
	_ = c.SetDeadline(time.Now().Add(limit))
	if _, err := c.Write(req); err != nil {
		return true, false, err
	}
	var head [4]byte
	_, err = io.ReadFull(c, head[:])
	if ctx.Err() != nil {
		return true, false, ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, false, nil
	}
	// Bytes, or the process closed the connection: either way it runs.
	return true, true, nil
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

// Prove shows that a kill or a pause holds: a killed node's process is
// gone (the backend says it does not run, and its listener accepts no
// connection from the kchaos host); a paused node answers no Kafka
// request (an ApiVersions from the kchaos host gets no reply within 1 s).
// A paused container cannot run a command, so its process state cannot be
// read from inside; where the kchaos host cannot reach the listener (a
// client cut), the backend's paused state is the proof, and says so.
func (f *processFault) Prove(ctx context.Context, e *Env) (map[string]any, error) {
	if f.op != histories.FKill && f.op != histories.FPause || len(f.nodes) == 0 {
		return nil, nil
	}
	rs := Parallel(f.nodes, func(id int32) struct {
		line string
		err  error
	} {
		type r = struct {
			line string
			err  error
		}
		st, err := e.Cluster.State(ctx, id)
		if err != nil {
			return r{err: err}
		}
		n, ap, err := e.ListenAddr(id)
		if err != nil {
			return r{err: err}
		}
		if f.op == histories.FKill {
			if st.Running {
				return r{fmt.Sprintf("%d: still runs", id), fmt.Errorf("node %d still runs after the kill", id)}
			}
			// A process killed with SIGKILL frees its memory before its
			// files: a JVM with a large heap is gone from pgrep (its
			// command line went with its memory) while its listener still
			// accepts for a moment. So the listener gets killListenerWait
			// to close.
			begin := time.Now()
			reach, _ := e.HostReach(ctx, ap.String(), ProbeCut)
			for reach == ReachOpen && time.Since(begin) < killListenerWait && sleep(ctx, 100*time.Millisecond) == nil {
				reach, _ = e.HostReach(ctx, ap.String(), ProbeCut)
			}
			line := fmt.Sprintf("%d: not running (exit %d), %s %s", id, st.ExitCode, n.Addr(), reach)
			if waited := time.Since(begin); waited > 500*time.Millisecond {
				line += fmt.Sprintf(" after %s", waited.Round(100*time.Millisecond))
			}
			if reach == ReachOpen {
				return r{line, fmt.Errorf("node %d: %s accepts connections %s after the kill", id, n.Addr(), killListenerWait)}
			}
			return r{line: line}
		}
		if !st.Paused {
			return r{fmt.Sprintf("%d: not paused", id), fmt.Errorf("node %d is not paused", id)}
		}
		connected, answered, err := e.kafkaAnswers(ctx, ap.String(), pauseProbe)
		switch {
		case ctx.Err() != nil:
			return r{err: ctx.Err()}
		case answered:
			return r{fmt.Sprintf("%d: answered ApiVersions", id), fmt.Errorf("node %d answered a Kafka request while paused", id)}
		case !connected:
			return r{line: fmt.Sprintf("%d: paused (backend state); %s unreachable from the kchaos host (%v)", id, n.Addr(), err)}
		}
		return r{line: fmt.Sprintf("%d: paused, %s accepts TCP but no answer to ApiVersions in %s", id, n.Addr(), pauseProbe)}
	})
	var lines []string
	var errs []error
	for _, r := range rs {
		lines = append(lines, r.line)
		errs = append(errs, r.err)
	}
	key := "stopped"
	if f.op == histories.FPause {
		key = "frozen"
	}
	return map[string]any{key: lines}, errors.Join(errs...)
}

// killListenerWait bounds how long a killed node's listener may go on
// accepting (its process exiting) before the kill counts as no effect.
const killListenerWait = 5 * time.Second

// pauseProbe is how long a paused node's silence must last: a running
// broker answers ApiVersions in milliseconds.
const pauseProbe = time.Second
