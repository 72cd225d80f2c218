package disk

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// TestLoseUnflushedThroughFiles: the power-loss fault kills the broker and
// cuts its log dir through cluster.Nodes.Files only (here the fake's local
// folder, as the Docker backend's bind mount): the segment of the real
// broker is cut back to the checkpoint's recovery point, the clean-shutdown
// marker goes, the history names the cut, and the heal starts the broker.
func TestLoseUnflushedThroughFiles(t *testing.T) {
	data, batches := readReal(t)
	env, c, _ := newFakeEnv()
	buf, logDir, seg := brokerLogDir(t, env, c, data)
	write(t, filepath.Join(logDir, cleanShutdownFile), nil)

	f, err := nemesis.NewFault(nemesis.Step{Fault: histories.FLoseUnflushed, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx, 0); st.Running {
		t.Error("broker 0 still runs after the power loss")
	}
	if st, err := os.Stat(seg); err != nil || st.Size() != batches[20].Pos {
		t.Errorf("segment %v bytes (%v), want cut to %d", st, err, batches[20].Pos)
	}
	if _, err := os.Stat(filepath.Join(logDir, cleanShutdownFile)); err == nil {
		t.Error(".kafka_cleanshutdown left")
	}
	if err := env.HealFault(ctx, f); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx, 0); !st.Running {
		t.Error("the heal did not start broker 0")
	}
	if err := env.Recorder.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(buf)
	if err != nil || len(evs) != 4 {
		t.Fatalf("%d events (%v), want invoke, ok, heal invoke, heal ok", len(evs), err)
	}
	var v histories.NemesisValue
	if err := evs[1].Decode(&v); err != nil || evs[1].Type != histories.OK {
		t.Fatalf("inject: %s %s %v", evs[1].Type, evs[1].Value, err)
	}
	cuts, _ := v.Details["0"].([]any)
	if len(cuts) != 1 {
		t.Fatalf("details %v: want one cut on broker 0", v.Details)
	}
	cut := cuts[0].(map[string]any)
	if cut["partition"] != "t-0" || cut["log_end_before"] != float64(50) || cut["log_end_after"] != float64(20) {
		t.Errorf("cut %v: want t-0 from 50 to 20", cut)
	}
}

// TestLoseUnflushedController: on a controller the power loss kills it and
// removes the clean-shutdown marker; its metadata log is left whole (Raft
// fsynced it) and the op names no cut.
func TestLoseUnflushedController(t *testing.T) {
	env, c, _ := newFakeEnv()
	logDir := t.TempDir()
	c.LogDirs = map[int32]string{1000: logDir}
	os.MkdirAll(filepath.Join(logDir, metadataLogDir), 0o755)
	seg := filepath.Join(logDir, metadataLogDir, "00000000000000000000.log")
	write(t, seg, []byte("metadata"))
	write(t, filepath.Join(logDir, cleanShutdownFile), nil)
	f, err := nemesis.NewFault(nemesis.Step{Fault: histories.FLoseUnflushed, Target: &nemesis.Target{Role: nemesis.RoleActiveController}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := env.Inject(ctx, f); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx, 1000); st.Running {
		t.Error("controller 1000 still runs after the power loss")
	}
	if b, err := os.ReadFile(seg); err != nil || string(b) != "metadata" {
		t.Errorf("metadata log %q %v, want it whole", b, err)
	}
	if _, err := os.Stat(filepath.Join(logDir, cleanShutdownFile)); err == nil {
		t.Error(".kafka_cleanshutdown left")
	}
	if got := f.(*loseUnflushed).nodes; len(got) != 1 || got[0] != 1000 {
		t.Errorf("touched %v, want [1000]", got)
	}
}
