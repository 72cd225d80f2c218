package process

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis"
)

// Prove shows that a kill or a pause holds: a killed node's process is
// gone (the backend says it does not run, and its listener accepts no
// connection from the kchaos host); a paused node answers no Kafka
// request (an ApiVersions from the kchaos host gets no reply within 1 s).
// A paused container cannot run a command, so its process state cannot be
// read from inside; where the kchaos host cannot reach the listener (a
// client cut), the backend's paused state is the proof, and says so.
func (f *processFault) Prove(ctx context.Context, e *nemesis.Env) (map[string]any, error) {
	if f.op != histories.FKill && f.op != histories.FPause || len(f.nodes) == 0 {
		return nil, nil
	}
	rs := nemesis.Parallel(f.nodes, func(id int32) struct {
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
			reach, _ := e.HostReach(ctx, ap.String(), nemesis.ProbeCut)
			for reach == nemesis.ReachOpen && time.Since(begin) < killListenerWait && ctxsleep.Sleep(ctx, 100*time.Millisecond) == nil {
				reach, _ = e.HostReach(ctx, ap.String(), nemesis.ProbeCut)
			}
			line := fmt.Sprintf("%d: not running (exit %d), %s %s", id, st.ExitCode, n.Addr(), reach)
			if waited := time.Since(begin); waited > 500*time.Millisecond {
				line += fmt.Sprintf(" after %s", waited.Round(100*time.Millisecond))
			}
			if reach == nemesis.ReachOpen {
				return r{line, fmt.Errorf("node %d: %s accepts connections %s after the kill", id, n.Addr(), killListenerWait)}
			}
			return r{line: line}
		}
		if !st.Paused {
			return r{fmt.Sprintf("%d: not paused", id), fmt.Errorf("node %d is not paused", id)}
		}
		connected, answered, err := kafkaAnswers(ctx, e, ap.String(), pauseProbe)
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

// kafkaAnswers sends an ApiVersions v0 request to addr from the kchaos
// host and waits at most limit for the first bytes of an answer. A frozen
// process does not answer, though its kernel still completes the TCP
// handshake (connected is then true).
func kafkaAnswers(ctx context.Context, e *nemesis.Env, addr string, limit time.Duration) (connected, answered bool, err error) {
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
