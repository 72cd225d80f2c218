// Package shutdown turns SIGINT, SIGTERM and SIGHUP into one orderly
// shutdown for every kchaos command that starts a cluster (run, matrix,
// cluster up, and the suite and audit to come):
//
//   - the first signal cancels the command's context with an *Interrupt
//     naming the signal and the phase; the command then heals, tears down
//     and checks what was recorded;
//   - a second signal says what is still to be removed;
//   - a third leaves at once, telling the user to run `kchaos clean`.
//
// A closed or broken stdout or stderr (the reader of a pipe, such as tee,
// exited at the same Ctrl-C) never kills the process: SIGPIPE is caught, so
// writes to fd 1 and 2 return EPIPE, and every message this package prints
// ignores write errors.
package shutdown

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// exitAbandoned is the exit code after a third signal: the command left
// without finishing its teardown.
const exitAbandoned = 255

// signals are the signals that start the shutdown.
var signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// Interrupt is the cause of a context cancelled by a signal.
type Interrupt struct {
	Signal os.Signal
	Phase  string // the phase the command was in ("" if it never said)
}

func (i *Interrupt) Error() string {
	if i.Phase == "" {
		return "interrupted by " + SignalName(i.Signal)
	}
	return fmt.Sprintf("interrupted at %s by %s", i.Phase, SignalName(i.Signal))
}

// SignalName is "SIGINT", "SIGTERM", "SIGHUP" or the signal's own name.
func SignalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case nil:
		return "a signal"
	}
	return s.String()
}

// Options tune a Shutdown.
type Options struct {
	// Out receives the messages (default os.Stderr); write errors are ignored.
	Out io.Writer
	// Exit leaves the process on the third signal (default os.Exit).
	Exit func(code int)
	// Signals, when set, replaces the process's signals (for tests).
	Signals <-chan os.Signal
	// Plan says what the first signal starts (default "final heal,
	// teardown, then the check of what was recorded").
	Plan string
}

// Shutdown watches the signals of one command.
type Shutdown struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	out    io.Writer
	exit   func(int)
	plan   string
	stop   func()
	done   chan struct{}
	once   sync.Once

	mu      sync.Mutex
	phase   string
	count   int
	pending map[int]string
	next    int
}

type key struct{}

// Start watches the signals until Stop. Its Context is cancelled at the
// first signal with an *Interrupt as the cause.
func Start(parent context.Context, o Options) *Shutdown {
	s := &Shutdown{out: o.Out, exit: o.Exit, plan: o.Plan, done: make(chan struct{}), pending: map[int]string{}}
	if s.plan == "" {
		s.plan = "final heal, teardown, then the check of what was recorded"
	}
	if s.out == nil {
		s.out = os.Stderr
	}
	if s.exit == nil {
		s.exit = os.Exit
	}
	ctx, cancel := context.WithCancelCause(parent)
	s.ctx, s.cancel = context.WithValue(ctx, key{}, s), cancel
	ch := o.Signals
	s.stop = func() {}
	if ch == nil {
		c := make(chan os.Signal, 8)
		// SIGPIPE is caught (and dropped) so that a write to a broken
		// stdout or stderr returns EPIPE instead of killing the process.
		signal.Notify(c, append([]os.Signal{syscall.SIGPIPE}, signals...)...)
		ch, s.stop = c, func() { signal.Stop(c) }
	}
	go s.loop(ch)
	return s
}

// Context is cancelled at the first signal.
func (s *Shutdown) Context() context.Context { return s.ctx }

// Stop stops watching. SIGPIPE stays caught: the process is about to end
// and may still write to a dead pipe.
func (s *Shutdown) Stop() {
	s.once.Do(func() {
		close(s.done)
		s.stop()
		signal.Ignore(syscall.SIGPIPE)
		s.cancel(nil)
	})
}

func (s *Shutdown) loop(ch <-chan os.Signal) {
	for {
		select {
		case sig := <-ch:
			if sig == syscall.SIGPIPE {
				continue
			}
			s.handle(sig)
		case <-s.done:
			return
		}
	}
}

func (s *Shutdown) handle(sig os.Signal) {
	s.mu.Lock()
	s.count++
	n, phase, left := s.count, s.phase, s.pendingLocked()
	s.mu.Unlock()
	name := SignalName(sig)
	switch n {
	case 1:
		at := ""
		if phase != "" {
			at = " at " + phase
		}
		s.say("%s%s: stopping: %s (signal again to see what is left)", name, at, s.plan)
		s.cancel(&Interrupt{Signal: sig, Phase: phase})
	case 2:
		if left == "" {
			s.say("%s: still shutting down (%s); nothing is left to remove. A third signal leaves at once.", name, phase)
			return
		}
		s.say("%s: still shutting down (%s); still to remove: %s. A third signal leaves at once.", name, phase, left)
	default:
		if left == "" {
			s.say("%s: leaving now", name)
		} else {
			s.say("%s: leaving now; left behind: %s. Run `kchaos clean` to remove them.", name, left)
		}
		s.exit(exitAbandoned)
	}
}

func (s *Shutdown) say(format string, args ...any) {
	_, _ = fmt.Fprintf(s.out, "\nkchaos: "+format+"\n", args...)
}

func (s *Shutdown) pendingLocked() string {
	ids := make([]int, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = s.pending[id]
	}
	return strings.Join(parts, "; ")
}

// from returns the Shutdown watching ctx, or nil.
func from(ctx context.Context) *Shutdown {
	s, _ := ctx.Value(key{}).(*Shutdown)
	return s
}

// SetPhase tells ctx's Shutdown (if any) the phase the command is in.
func SetPhase(ctx context.Context, phase string) {
	if s := from(ctx); s != nil {
		s.mu.Lock()
		s.phase = phase
		s.mu.Unlock()
	}
}

// Track tells ctx's Shutdown (if any) about something teardown must still
// remove, e.g. "run 2026…-ab12cd: containers kchaos-…-broker-0, …". release
// says it is gone.
func Track(ctx context.Context, what string) (release func()) {
	s := from(ctx)
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	id := s.next
	s.next++
	s.pending[id] = what
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}
}

// Cause returns the *Interrupt that cancelled ctx, if a signal did.
func Cause(ctx context.Context) (*Interrupt, bool) {
	var i *Interrupt
	if errors.As(context.Cause(ctx), &i) {
		return i, true
	}
	return nil, false
}
