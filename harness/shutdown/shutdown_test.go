package shutdown

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSignals: each of SIGINT, SIGTERM and SIGHUP cancels with an
// *Interrupt naming the signal and phase; the second signal lists what is
// still to remove; the third leaves with ExitAbandoned, naming
// `kchaos clean`. SIGPIPE is dropped.
func TestSignals(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(SignalName(sig), func(t *testing.T) {
			ch := make(chan os.Signal)
			var out syncBuf
			exited := make(chan int, 1)
			s := Start(context.Background(), Options{Out: &out, Signals: ch, Exit: func(c int) { exited <- c }})
			defer s.Stop()
			ctx := s.Context()
			SetPhase(ctx, "workload")
			release := Track(context.WithoutCancel(ctx), "run r1: containers a, b and network n")
			ch <- syscall.SIGPIPE
			if ctx.Err() != nil {
				t.Fatal("SIGPIPE cancelled the context")
			}
			ch <- sig
			<-ctx.Done()
			i, ok := Cause(ctx)
			if !ok || i.Signal != sig || i.Phase != "workload" {
				t.Fatalf("cause %v, want an Interrupt by %v at workload", context.Cause(ctx), sig)
			}
			if want := "interrupted at workload by " + SignalName(sig); i.Error() != want {
				t.Errorf("Error() = %q, want %q", i.Error(), want)
			}
			SetPhase(ctx, "teardown")
			ch <- sig
			waitFor(t, "second message", func() bool {
				return strings.Contains(out.String(), "still to remove: run r1: containers a, b and network n")
			})
			if !strings.Contains(out.String(), "(teardown)") {
				t.Errorf("second message does not name the phase:\n%s", out.String())
			}
			ch <- sig
			select {
			case c := <-exited:
				if c != exitAbandoned {
					t.Errorf("exit %d, want %d", c, exitAbandoned)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("third signal did not leave")
			}
			if !strings.Contains(out.String(), "kchaos clean") {
				t.Errorf("third message does not name kchaos clean:\n%s", out.String())
			}
			release()
			if from(ctx).pendingLocked() != "" {
				t.Error("release left the item pending")
			}
		})
	}
}

func TestNoShutdownInContext(t *testing.T) {
	ctx := context.Background()
	SetPhase(ctx, "x")
	Track(ctx, "y")()
	if from(ctx) != nil {
		t.Fatal("From found a Shutdown in a bare context")
	}
	if _, ok := Cause(ctx); ok {
		t.Fatal("Cause found an Interrupt in a bare context")
	}
}

// TestBrokenPipe: with a Shutdown started, writing to a stdout and stderr
// whose reader has gone does not kill the process (it would die of SIGPIPE
// otherwise).
func TestBrokenPipe(t *testing.T) {
	if mode := os.Getenv("KCHAOS_SHUTDOWN_CHILD"); mode != "" {
		s := &Shutdown{}
		if mode == "with" {
			s = Start(context.Background(), Options{})
		}
		for i := 0; i < 100; i++ {
			fmt.Println("line", i)
			fmt.Fprintln(os.Stderr, "line", i)
		}
		if mode == "with" {
			s.Stop()
		}
		os.Exit(7) // survived
	}
	for _, mode := range []string{"with", "without"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // the reader exits first, as tee does at Ctrl-C
		cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenPipe$")
		cmd.Env = append(os.Environ(), "KCHAOS_SHUTDOWN_CHILD="+mode)
		cmd.Stdout, cmd.Stderr = w, w
		err = cmd.Run()
		w.Close()
		code := cmd.ProcessState.ExitCode()
		switch {
		case mode == "with" && code != 7:
			t.Fatalf("child with a Shutdown: exit %d (%v), want 7 (survived the broken pipe)", code, err)
		case mode == "without" && code == 7:
			t.Fatal("child without a Shutdown survived: the test does not exercise SIGPIPE")
		}
	}
}
