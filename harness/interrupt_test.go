package harness

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/shutdown"
)

func TestFaultText(t *testing.T) {
	for _, c := range []struct {
		msg   string
		attrs []any
		want  string
		ok    bool
	}{
		{"nemesis: injected", []any{"fault", "partition", "nodes", []int32{0, 1, 2},
			"details", map[string]any{"shape": "leader-followers", "groups": [][]int32{{0}, {1, 2}}}, "took", 12 * time.Millisecond},
			"injected on nodes [0 1 2]: groups [[0] [1 2]], shape leader-followers, took 12ms", true},
		{"nemesis: healed", []any{"what", "kill", "nodes", []int32{}, "details", map[string]any(nil)}, "healed", true},
		{"nemesis: condition holds", []any{"until", "partition 0 isr [0]", "after", time.Second}, "condition holds: until partition 0 isr [0], after 1s", true},
		{"run folder", []any{"dir", "x"}, "", false},
	} {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, c.msg, 0)
		r.Add(c.attrs...)
		got, ok := faultText(r)
		if got != c.want || ok != c.ok {
			t.Errorf("faultText(%s) = %q, %v; want %q, %v", c.msg, got, ok, c.want, c.ok)
		}
	}
}

// TestMarkInterrupted: valid becomes unknown, invalid stands, the reason
// comes first, and results.json is (re)written, with or without a check.
func TestMarkInterrupted(t *testing.T) {
	for _, c := range []struct {
		name string
		in   *checker.Result
		want checker.Verdict
	}{
		{"valid", &checker.Result{Valid: checker.Valid}, checker.Unknown},
		{"invalid", &checker.Result{Valid: checker.Invalid, Reasons: []string{"lost-write: 3"}}, checker.Invalid},
		{"no history", nil, checker.Unknown},
	} {
		dir := t.TempDir()
		res, err := markInterrupted(dir, c.in, "interrupted at workload by SIGINT")
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, checker.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		var back checker.Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Valid != c.want || res.Valid != c.want || back.Reasons[0] != "interrupted at workload by SIGINT" {
			t.Errorf("%s: valid %s, reasons %q; want %s, the interruption first", c.name, back.Valid, back.Reasons, c.want)
		}
	}
}

func TestInterruption(t *testing.T) {
	ch := make(chan os.Signal, 1)
	sd := shutdown.Start(context.Background(), shutdown.Options{Signals: ch})
	defer sd.Stop()
	ch <- syscall.SIGTERM
	<-sd.Context().Done()
	if got, want := interruption(sd.Context(), "final read"), "interrupted at final read by SIGTERM"; got != want {
		t.Errorf("interruption = %q, want %q", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, want := interruption(ctx, "cluster"), "interrupted at cluster (context canceled)"; got != want {
		t.Errorf("interruption = %q, want %q", got, want)
	}
}
