//go:build integration

package nemesis_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

func nodes(ids ...int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: ids}
}

// TestPauseResume: a paused (cgroup-frozen) follower leaves the ISR after
// replica.lag.time.max.ms, and rejoins once resumed.
func TestPauseResume(t *testing.T) {
	h := start(t, nil)
	h.replicated("pr", 100)
	h.inject(nemesis.Step{Fault: histories.FPause, Target: nodes(2)})
	st, _ := h.c.State(context.Background(), 2)
	must(t, st.Running && st.Paused, "broker 2 state after pause: %+v", st)
	took := h.until(isr(0, 1), 30*time.Second)
	t.Logf("ISR [0 1 2] -> [0 1] %s after pausing broker 2", took)
	h.produce(100, "b", false)
	h.inject(nemesis.Step{Fault: histories.FResume, Target: nodes(2)})
	took = h.until(isr(0, 1, 2), 60*time.Second)
	t.Logf("broker 2 back in the ISR %s after resume", took)
	must(t, h.leo(2) == 200, "broker 2 log end %d, want 200", h.leo(2))
	ops := h.nemesisOps()
	for _, f := range []string{histories.FPause, histories.FResume} {
		ev, v, ok := completion(ops, f)
		must(t, ok && ev.Type == "ok" && equal(v.Nodes, []int32{2}), "%s completion %+v %+v", f, ev, v)
	}
}

// lastOffsetOnDisk reads a stopped broker's segment of partition 0 from
// the host side of its log dir.
func lastOffsetOnDisk(t *testing.T, h *harness, broker int32) int64 {
	t.Helper()
	path := filepath.Join(h.c.HostDataDir(broker), h.env.Topic+"-0", "00000000000000000000.log")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b, err := nemesis.ScanBatches(f, st.Size())
	if err != nil || len(b) == 0 {
		t.Fatalf("%s: %d batches, %v", path, len(b), err)
	}
	return b[len(b)-1].LastOffset
}

// logSince returns what broker id logged after the first n bytes.
func logSince(t *testing.T, h *harness, id int32, n int) string {
	t.Helper()
	b, err := h.c.Logs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[n:])
}

// recovery finds the line in which Kafka says it recovers an unflushed
// segment of partition (what it does after an unclean shutdown only).
func recovery(log, partition string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Recovering unflushed segment") && strings.Contains(l, "partition="+partition+",") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func logLen(t *testing.T, h *harness, id int32) int {
	return len(logSince(t, h, id, 0))
}

// TestKillStartRestart: the leader killed with SIGKILL keeps its disk, and
// on start recovers its own log (Kafka logs the recovery of an unflushed
// segment), catches up and rejoins the ISR; a preferred election gives the
// partition back to it; a clean restart (SIGTERM) needs no recovery.
func TestKillStartRestart(t *testing.T) {
	h := start(t, nil)
	ctx := context.Background()
	h.replicated("ks", 200)
	mark := logLen(t, h, 0)

	begin := time.Now()
	h.inject(nemesis.Step{Fault: histories.FKill, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
	t.Logf("kill -9 of leader 0 took %s", since(begin))
	st, _ := h.c.State(ctx, 0)
	must(t, !st.Running && st.ExitCode == 137, "broker 0 after kill: %+v", st)
	must(t, lastOffsetOnDisk(t, h, 0) == 199, "dead broker 0's disk ends at offset %d, want 199", lastOffsetOnDisk(t, h, 0))
	took := h.until(nemesis.Condition{Fenced: []int32{0}, ISR: []int32{1, 2}}, 30*time.Second)
	t.Logf("broker 0 fenced and out of the ISR %s after the kill", took)
	h.produce(100, "b", false)

	begin = time.Now()
	h.inject(nemesis.Step{Fault: histories.FStart, Target: nodes(0)})
	h.until(isr(0, 1, 2), 90*time.Second)
	t.Logf("broker 0 back in the ISR %s after start", since(begin))
	must(t, h.leo(0) == 300, "broker 0 log end %d, want 300", h.leo(0))
	line := recovery(logSince(t, h, 0, mark), "ks-0")
	must(t, line != "", "broker 0 did not recover its own ks-0 log after kill -9")
	t.Logf("broker 0 logged: %s", line)

	// Broker 1 took over at the kill; a preferred election gives the
	// partition back to broker 0, first in the replica list.
	p, _ := h.adm.Describe(ctx, "ks")
	must(t, p[0].Leader != 0, "leader is already 0 before the preferred election: %+v", p[0])
	h.inject(nemesis.Step{Fault: histories.FElectPreferred})
	ops := h.nemesisOps()
	_, v, _ := completion(ops, histories.FElectPreferred)
	t.Logf("recorded elect-preferred: nodes %v details %v", v.Nodes, v.Details)
	must(t, slices.Equal(v.Nodes, []int32{0}), "elect-preferred recorded leaders %v, want [0]", v.Nodes)
	// Another broker's metadata cache may lag the one the step read by a
	// moment; the leader must show there too, promptly.
	zero := int32(0)
	h.until(nemesis.Condition{Leader: &zero}, 5*time.Second)

	mark = logLen(t, h, 1)
	begin = time.Now()
	h.inject(nemesis.Step{Fault: histories.FRestart, Target: nodes(1)})
	t.Logf("clean restart of broker 1 (SIGTERM, start, unfenced) took %s", since(begin))
	line = recovery(logSince(t, h, 1, mark), "ks-0")
	must(t, line == "", "broker 1 recovered ks-0 after a clean shutdown: %s", line)
	took = h.until(isr(0, 1, 2), 90*time.Second)
	t.Logf("broker 1 back in the ISR %s after its restart", took)

	if err := (&nemesis.Runner{Env: h.env}).FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}
