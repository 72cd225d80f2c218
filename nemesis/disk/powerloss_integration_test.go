//go:build integration

package disk_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/disk"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestLoseUnflushed: a broker's log whose recovery point is behind its end
// loses exactly the unflushed tail at a power cut, and Kafka recovers it as
// after a crash.
//
// The topic has one replica (broker 0), so that no follower refills the log
// after the restart and the log end offset measured afterwards is what the
// disk kept. flush.messages=1 makes every append flush (the recovery point
// follows the log end) for the first 20 records; then it is switched off
// live, and 30 more records stay in the page cache only. The brokers
// checkpoint recovery points every second, from a second after start,
// instead of every minute from 30 s after start.
//
// With KCHAOS_UPDATE_TESTDATA=1 it also copies the segment and checkpoint
// that the unit test TestCutLogRealSegment cuts into testdata/.
func TestLoseUnflushed(t *testing.T) {
	h := nt.Start(t, map[string]string{
		"log.flush.offset.checkpoint.interval.ms": "1000",
		"log.initial.task.delay.ms":               "1000", // default 30s before the first checkpoint
	})
	ctx := context.Background()
	h.Topic("pl", []int32{0}, map[string]string{"flush.messages": "1"})
	h.Produce(20, "flushed", true)
	dir := h.C.HostDataDir(0)
	rp := waitRecoveryPoint(t, dir, "pl-0", 20, 15*time.Second)
	t.Logf("recovery point of pl-0 reached %d", rp)
	if err := h.Adm.SetTopicConfig(ctx, "pl", "flush.messages", nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the config reaches broker 0 through the metadata log
	h.Produce(30, "unflushed", true)
	time.Sleep(2500 * time.Millisecond) // at least two more checkpoints
	rp = waitRecoveryPoint(t, dir, "pl-0", 0, time.Second)
	before := h.Leo(0)
	nt.Must(t, before == 50 && rp < before, "before the cut: log end %d, recovery point %d; want 50 and less", before, rp)
	if os.Getenv("KCHAOS_UPDATE_TESTDATA") != "" {
		copyTestdata(t, dir)
	}
	logs, err := h.C.Logs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	h.Inject(nemesis.Step{Fault: histories.FLoseUnflushed,
		Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &disk.LoseUnflushedParams{Start: true}})
	t.Logf("lose-unflushed (kill -9, cut, start) took %s", nt.Since(begin))
	after := h.Leo(0)
	t.Logf("broker 0 answers for pl-0 again %s after the fault", nt.Since(begin))
	if parts, err := h.Adm.Describe(ctx, "pl"); err == nil {
		t.Logf("pl-0 after the restart: %+v", parts[0])
	}
	t.Logf("log end offset of pl-0 on broker 0: %d before, %d after (recovery point %d)", before, after, rp)
	nt.Must(t, after < before && after == rp, "log end after %d, want the recovery point %d (< %d)", after, rp, before)

	// Kafka saw an unclean shutdown: it recovered the partition's unflushed
	// segment. Only the log written since the fault counts (docker logs
	// keep every start of the container).
	all, err := h.C.Logs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	recovered := nt.Recovery(string(all[len(logs):]), "pl-0")
	nt.Must(t, recovered != "", "broker 0 did not log an unclean recovery of pl-0 after restart")
	t.Logf("broker 0 logged: %s", recovered)

	ops := h.NemesisOps()
	ev, v, ok := nt.Completion(ops, histories.FLoseUnflushed)
	nt.Must(t, ok && ev.Type == "ok", "lose-unflushed completion: %+v", ev)
	t.Logf("recorded: %s", ev.Value)
	if !bytes.Contains(ev.Value, []byte(`"partition":"pl-0","recovery_point":20,"log_end_before":50,"log_end_after":20`)) {
		t.Errorf("recorded cut of pl-0 is not 50 -> 20: %s", ev.Value)
	}
	nt.Must(t, nt.Equal(v.Nodes, []int32{0}), "nodes %v, want [0]", v.Nodes)
	r := nemesis.Runner{Env: h.Env}
	if err := r.FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitRecoveryPoint polls the broker's checkpoint file until partition's
// recovery point is at least min, and returns it.
func waitRecoveryPoint(t *testing.T, dir, partition string, min int64, limit time.Duration) int64 {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last int64 = -1
	for {
		data, err := os.ReadFile(filepath.Join(dir, disk.RecoveryPointFile))
		if err == nil {
			if m, err := disk.ParseCheckpoint(data); err == nil {
				if o, ok := m[partition]; ok {
					last = o
					if o >= min {
						return o
					}
				}
			}
		}
		if time.Now().After(deadline) {
			data, err := os.ReadFile(filepath.Join(dir, disk.RecoveryPointFile))
			t.Fatalf("recovery point of %s: %d, want >= %d within %s (checkpoint %q, %v)", partition, last, min, limit, data, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func copyTestdata(t *testing.T, dir string) {
	t.Helper()
	for src, dst := range map[string]string{
		filepath.Join(dir, "pl-0", "00000000000000000000.log"): "testdata/pl-0/00000000000000000000.log",
		filepath.Join(dir, disk.RecoveryPointFile):             "testdata/" + disk.RecoveryPointFile,
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", dst, len(b))
	}
}

func ptr[T any](v T) *T { return &v }
