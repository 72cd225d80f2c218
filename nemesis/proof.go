package nemesis

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
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

func (e *Env) dialHost(ctx context.Context, addr string, limit time.Duration) (net.Conn, error) {
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

// passes reports whether packets got through (a reset is an answer).
func (r Reach) passes() bool { return r == ReachOpen || r == ReachRefused }

// Probe limits: a dropped SYN is retried by the kernel for a minute, so a
// probe that does not connect within these counts as dropped. A proof
// delays the schedule's next step by about the cut probe's limit (plus an
// exec), so it is short: a running peer on the same network answers a SYN
// in well under a millisecond; the control, which guards against a probe
// that sees nothing, gets longer.
const (
	probeCut     = 500 * time.Millisecond
	probeControl = 2 * time.Second
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
func parseProbe(out string) (Reach, error) {
	out = strings.TrimSpace(out)
	rc, msg, _ := strings.Cut(strings.TrimPrefix(out, "rc="), " ")
	low := strings.ToLower(msg)
	switch {
	case !strings.HasPrefix(out, "rc="):
		return "", fmt.Errorf("probe: unexpected output %q", out)
	case rc == "0":
		return ReachOpen, nil
	case rc == "124":
		return ReachDropped, nil
	case strings.Contains(low, "refused"):
		return ReachRefused, nil
	case strings.Contains(low, "not permitted"):
		return ReachDropped, nil // EPERM: a local OUTPUT rule dropped the SYN
	case strings.Contains(low, "no route"), strings.Contains(low, "unreachable"):
		return ReachUnreachable, nil
	}
	return "", fmt.Errorf("probe: %s", out)
}

// probe connects from node from to addr.
func (e *Env) probe(ctx context.Context, from int32, addr netip.AddrPort, limit time.Duration) (Reach, error) {
	out, err := e.Cluster.Exec(ctx, from, "sh", "-c", probeScript(addr, limit))
	if err != nil {
		return "", err
	}
	return parseProbe(out)
}

// listenAddr is node id's Kafka listener (brokers 9092, controllers 9093).
func (e *Env) listenAddr(id int32) (cluster.Node, netip.AddrPort, error) {
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

// hostReach connects from the kchaos host to addr.
func (e *Env) hostReach(ctx context.Context, addr string, limit time.Duration) (Reach, string) {
	c, err := e.dialHost(ctx, addr, limit)
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
	c, err := e.dialHost(ctx, addr, limit)
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

// parallel runs fn for each id at once and returns the results in id order.
func parallel[T any](ids []int32, fn func(id int32) T) []T {
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

// ruledIPs are the addresses node id's kchaos rules name.
func ruledIPs(ctx context.Context, e *Env, id int32) map[string]bool {
	out := map[string]bool{}
	rules, _ := e.ListRules(ctx, id)
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
func (f *partitionFault) Prove(ctx context.Context, e *Env) (map[string]any, error) {
	if len(f.touched) == 0 {
		return nil, fmt.Errorf("no node took rules (skipped %v)", f.skipped)
	}
	type res struct {
		cut, control string
		err          error
	}
	all := e.AllNodes()
	rs := parallel(f.touched, func(id int32) res {
		peer := f.applied[id][0]
		_, ap, err := e.listenAddr(peer)
		if err != nil {
			return res{err: err}
		}
		r, err := e.probe(ctx, id, ap, probeCut)
		if err != nil {
			return res{err: fmt.Errorf("node %d: probe to %d: %w", id, peer, err)}
		}
		out := res{cut: fmt.Sprintf("%d->%d %s", id, peer, r)}
		if r.passes() {
			out.err = fmt.Errorf("node %d still reaches cut peer %d (%s)", id, peer, r)
			return out
		}
		// The control: a peer no kchaos rule on this node drops (an
		// earlier partition may still cut others), tried in order until
		// one answers.
		dropped := ruledIPs(ctx, e, id)
		var tried []string
		for _, c := range all {
			n, cp, err := e.listenAddr(c)
			if err != nil {
				return res{err: err}
			}
			if c == id || slices.Contains(f.applied[id], c) || dropped[n.IP] || !e.runsUnpaused(ctx, c) {
				continue
			}
			r, err := e.probe(ctx, id, cp, probeControl)
			if err != nil {
				out.err = fmt.Errorf("node %d: control probe to %d: %w", id, c, err)
				return out
			}
			tried = append(tried, fmt.Sprintf("%d->%d %s", id, c, r))
			if r.passes() {
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
	rs := parallel(f.nodes, func(id int32) struct {
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
		n, ap, err := e.listenAddr(id)
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
			reach, _ := e.hostReach(ctx, ap.String(), probeCut)
			for reach == ReachOpen && time.Since(begin) < killListenerWait && sleep(ctx, 100*time.Millisecond) == nil {
				reach, _ = e.hostReach(ctx, ap.String(), probeCut)
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
