//go:build integration

package process_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/disk"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
	// TestKillStartRestart elects the preferred leader back, a kind of
	// nemesis/quorum's: a room's tests may link the room whose kinds they
	// take as steps (internal/layers).
	_ "github.com/kchaos/kchaos/nemesis/quorum"
)

func nodes(ids ...int32) *nemesis.Target {
	return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: ids}
}

// TestPauseResume: a paused (cgroup-frozen) follower leaves the ISR after
// replica.lag.time.max.ms, and rejoins once resumed.
func TestPauseResume(t *testing.T) {
	h := nt.Start(t, nil)
	h.Replicated("pr", 100)
	h.Inject(nemesis.Step{Fault: histories.FPause, Target: nodes(2)})
	st, _ := h.C.State(context.Background(), 2)
	nt.Must(t, st.Running && st.Paused, "broker 2 state after pause: %+v", st)
	took := h.Until(nt.ISR(0, 1), 30*time.Second)
	t.Logf("ISR [0 1 2] -> [0 1] %s after pausing broker 2", took)
	h.Produce(100, "b", false)
	h.Inject(nemesis.Step{Fault: histories.FResume, Target: nodes(2)})
	took = h.Until(nt.ISR(0, 1, 2), 60*time.Second)
	t.Logf("broker 2 back in the ISR %s after resume", took)
	nt.Must(t, h.Leo(2) == 200, "broker 2 log end %d, want 200", h.Leo(2))
	ops := h.NemesisOps()
	for _, f := range []string{histories.FPause, histories.FResume} {
		ev, v, ok := nt.Completion(ops, f)
		nt.Must(t, ok && ev.Type == "ok" && nt.Equal(v.Nodes, []int32{2}), "%s completion %+v %+v", f, ev, v)
	}
}

// lastOffsetOnDisk reads a stopped broker's segment of partition 0 from
// the host side of its log dir.
func lastOffsetOnDisk(t *testing.T, h *nt.Harness, broker int32) int64 {
	t.Helper()
	path := filepath.Join(h.C.HostDataDir(broker), h.Env.Topic+"-0", "00000000000000000000.log")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b, err := disk.ScanBatches(f, st.Size())
	if err != nil || len(b) == 0 {
		t.Fatalf("%s: %d batches, %v", path, len(b), err)
	}
	return b[len(b)-1].LastOffset
}

// logSince returns what broker id logged after the first n bytes.
func logSince(t *testing.T, h *nt.Harness, id int32, n int) string {
	t.Helper()
	b, err := h.C.Logs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[n:])
}

func logLen(t *testing.T, h *nt.Harness, id int32) int {
	return len(logSince(t, h, id, 0))
}

// TestKillStartRestart: the leader killed with SIGKILL keeps its disk, and
// on start recovers its own log (Kafka logs the recovery of an unflushed
// segment), catches up and rejoins the ISR; a preferred election gives the
// partition back to it; a clean restart (SIGTERM) needs no recovery.
func TestKillStartRestart(t *testing.T) {
	h := nt.Start(t, nil)
	ctx := context.Background()
	h.Replicated("ks", 200)
	mark := logLen(t, h, 0)

	begin := time.Now()
	h.Inject(nemesis.Step{Fault: histories.FKill, Target: &nemesis.Target{Role: nemesis.RoleLeader}})
	t.Logf("kill -9 of leader 0 took %s", nt.Since(begin))
	st, _ := h.C.State(ctx, 0)
	nt.Must(t, !st.Running && st.ExitCode == 137, "broker 0 after kill: %+v", st)
	nt.Must(t, lastOffsetOnDisk(t, h, 0) == 199, "dead broker 0's disk ends at offset %d, want 199", lastOffsetOnDisk(t, h, 0))
	took := h.Until(nemesis.Condition{Fenced: []int32{0}, ISR: []int32{1, 2}}, 30*time.Second)
	t.Logf("broker 0 fenced and out of the ISR %s after the kill", took)
	h.Produce(100, "b", false)

	begin = time.Now()
	h.Inject(nemesis.Step{Fault: histories.FStart, Target: nodes(0)})
	h.Until(nt.ISR(0, 1, 2), 90*time.Second)
	t.Logf("broker 0 back in the ISR %s after start", nt.Since(begin))
	nt.Must(t, h.Leo(0) == 300, "broker 0 log end %d, want 300", h.Leo(0))
	line := nt.Recovery(logSince(t, h, 0, mark), "ks-0")
	nt.Must(t, line != "", "broker 0 did not recover its own ks-0 log after kill -9")
	t.Logf("broker 0 logged: %s", line)

	// Broker 1 took over at the kill; a preferred election gives the
	// partition back to broker 0, first in the replica list.
	p, _ := h.Adm.Describe(ctx, "ks")
	nt.Must(t, p[0].Leader != 0, "leader is already 0 before the preferred election: %+v", p[0])
	h.Inject(nemesis.Step{Fault: histories.FElectPreferred})
	ops := h.NemesisOps()
	_, v, _ := nt.Completion(ops, histories.FElectPreferred)
	t.Logf("recorded elect-preferred: nodes %v details %v", v.Nodes, v.Details)
	nt.Must(t, slices.Equal(v.Nodes, []int32{0}), "elect-preferred recorded leaders %v, want [0]", v.Nodes)
	// Another broker's metadata cache may lag the one the step read by a
	// moment; the leader must show there too, promptly.
	zero := int32(0)
	h.Until(nemesis.Condition{Leader: &zero}, 5*time.Second)

	mark = logLen(t, h, 1)
	begin = time.Now()
	h.Inject(nemesis.Step{Fault: histories.FRestart, Target: nodes(1)})
	t.Logf("clean restart of broker 1 (SIGTERM, start, unfenced) took %s", nt.Since(begin))
	line = nt.Recovery(logSince(t, h, 1, mark), "ks-0")
	nt.Must(t, line == "", "broker 1 recovered ks-0 after a clean shutdown: %s", line)
	took = h.Until(nt.ISR(0, 1, 2), 90*time.Second)
	t.Logf("broker 1 back in the ISR %s after its restart", took)

	if err := (&nemesis.Runner{Env: h.Env}).FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}
