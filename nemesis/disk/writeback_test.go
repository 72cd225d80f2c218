package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// t0 is the stamp of the first synthetic batch; batch i is stamped i
// seconds later.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ms(sec int) int64 { return t0.Add(time.Duration(sec) * time.Second).UnixMilli() }

// synth is n one-record batches, batch i at offset i, stamped at second i
// in the given epoch, with LogAppendTime unless createTime.
func synth(n int, epoch int32, createTime bool) []Batch {
	out := make([]Batch, n)
	for i := range out {
		out[i] = Batch{BaseOffset: int64(i), LastOffset: int64(i), LeaderEpoch: epoch, MaxTimestamp: ms(i), AppendTime: !createTime}
	}
	return out
}

func TestWritebackPoint(t *testing.T) {
	mixed := append(synth(30, 0, false), synth(50, 1, false)[30:]...)
	ct := synth(50, 1, true)
	spanning := []Batch{{BaseOffset: 0, LastOffset: 9, LeaderEpoch: 1}, {BaseOffset: 10, LastOffset: 19, LeaderEpoch: 1, AppendTime: false}}
	for _, tc := range []struct {
		name    string
		batches []Batch
		rp      int64
		epoch   int32
		cutoff  int64
		point   int64
		noAT    int
	}{
		// Batch i was written before batch i+1 was stamped: kept when
		// stamp i+1 is at or before the cutoff.
		{"window", synth(50, 1, false), 20, 1, ms(40), 40, 0},
		{"cutoff between stamps", synth(50, 1, false), 20, 1, ms(40) + 999, 40, 0},
		{"nothing written back yet", synth(50, 1, false), 20, 1, ms(10), 20, 0},
		{"the last batch has no later stamp", synth(50, 1, false), 0, 1, ms(99), 49, 0},
		{"not led at the cut", synth(50, 1, false), 20, -1, ms(99), 20, 0},
		{"led in another epoch", synth(50, 1, false), 20, 2, ms(99), 20, 0},
		// Batches written as a follower (epoch 0) precede the first
		// stamp as leader (batch 30): bounded by it.
		{"follower batches bounded by the first leader stamp", mixed, 5, 1, ms(30), 30, 0},
		{"follower batches, cutoff before it", mixed, 5, 1, ms(29), 5, 0},
		{"create time bounds nothing", ct, 20, 1, ms(99), 20, 30},
		{"all flushed", synth(50, 1, false), 50, 1, ms(0), 50, 0},
		{"empty", nil, 7, 1, ms(0), 7, 0},
		{"spanning the recovery point, unbounded", spanning, 5, 1, ms(99), 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			point, noAT := writebackPoint(tc.batches, tc.rp, tc.epoch, tc.cutoff)
			if point != tc.point || noAT != tc.noAT {
				t.Errorf("point %d, %d without append time; want %d, %d", point, noAT, tc.point, tc.noAT)
			}
		})
	}
}

// stamped rewrites the real segment's 50 batches (testdata, offsets
// 0-49, epoch 0) as LogAppendTime batches of epoch 3 stamped one second
// apart from t0 (the cut does not check CRCs, as Kafka's recovery would).
func stamped(t *testing.T) ([]byte, []Batch) {
	t.Helper()
	data, batches := readReal(t)
	data = bytes.Clone(data)
	for i, b := range batches {
		h := data[b.Pos:]
		binary.BigEndian.PutUint32(h[12:16], 3)
		binary.BigEndian.PutUint16(h[21:23], binary.BigEndian.Uint16(h[21:23])|attrLogAppendTime)
		binary.BigEndian.PutUint64(h[35:43], uint64(ms(i)))
	}
	got, err := ScanBatches(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(got) != 50 || !got[7].AppendTime || got[7].MaxTimestamp != ms(7) || got[7].LeaderEpoch != 3 {
		t.Fatalf("rewritten batches do not scan back: %v %+v", err, got[7])
	}
	return data, got
}

// TestScanBatchesTimestamps: the real segment (Kafka 4.1.2, topic with
// the default CreateTime) carries the producer's times.
func TestScanBatchesTimestamps(t *testing.T) {
	_, batches := readReal(t)
	for i, b := range batches {
		if b.AppendTime || b.MaxTimestamp < time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() ||
			(i > 0 && b.MaxTimestamp < batches[i-1].MaxTimestamp) {
			t.Fatalf("batch %d: %+v: want a CreateTime stamp of 2025 or later, in order", i, b)
		}
	}
}

// TestCutWriteback: a log dir with the led partition pl-0 (recovery point
// 20, segments split at 30) and a partition other-3 it did not lead; the
// power goes 39 s after t0 with a 4 s window (3 s expire, 1 s interval):
// pl-0 keeps what was written by second 35 (offsets 0-34), other-3 is cut
// at its recovery point (0), the clean-shutdown marker goes.
func TestCutWriteback(t *testing.T) {
	data, batches := stamped(t)
	logDir := t.TempDir()
	write(t, filepath.Join(logDir, RecoveryPointFile), []byte("0\n1\npl 0 20\n"))
	write(t, filepath.Join(logDir, cleanShutdownFile), nil)
	dir := layout(t, data, batches, 30)
	os.Rename(dir, filepath.Join(logDir, "pl-0"))
	os.MkdirAll(filepath.Join(logDir, "other-3"), 0o755)
	write(t, filepath.Join(logDir, "other-3", "00000000000000000000.log"), data)

	m := writeback{DirtyExpire: 3 * time.Second, Interval: time.Second}
	res, err := cutLogDirWriteback(context.Background(), cluster.LocalDir(logDir), m, t0.Add(39*time.Second), map[string]int32{"pl-0": 3})
	if err != nil || len(res) != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	other, pl := res[0], res[1]
	if pl.Partition != "pl-0" || pl.RecoveryPoint != 20 || pl.WritebackPoint == nil || *pl.WritebackPoint != 35 ||
		pl.EndBefore != 50 || pl.EndAfter != 35 || pl.NoAppendTime != 0 {
		t.Errorf("pl-0: %+v (writeback point %v), want kept to 35 above the recovery point 20", pl, pl.WritebackPoint)
	}
	if st, err := os.Stat(filepath.Join(logDir, "pl-0", "00000000000000000030.log")); err != nil || st.Size() != batches[35].Pos-batches[30].Pos {
		t.Errorf("active segment %v %v, want cut after offset 34", st, err)
	}
	if other.Partition != "other-3" || other.EndAfter != 0 || *other.WritebackPoint != 0 {
		t.Errorf("other-3 (not led): %+v, want cut to its recovery point 0", other)
	}
	if _, err := os.Stat(filepath.Join(logDir, cleanShutdownFile)); err == nil {
		t.Error(".kafka_cleanshutdown left")
	}
	// The recovery-point model on the same data cuts at 20.
	os.RemoveAll(filepath.Join(logDir, "pl-0"))
	os.Rename(layout(t, data, batches, 30), filepath.Join(logDir, "pl-0"))
	rp, err := cutToRecoveryPoints(context.Background(), cluster.LocalDir(logDir))
	if err != nil || rp[1].EndAfter != 20 || rp[1].WritebackPoint != nil {
		t.Errorf("recovery-point model: %+v %v", rp, err)
	}
}

// TestLoseUnflushedWritebackThroughFiles: the fault with model writeback asks who
// leads the workload topic before the kill, cuts by the model and records
// the model, its settings and the cut-off in the history.
func TestLoseUnflushedWritebackThroughFiles(t *testing.T) {
	data, batches := stamped(t)
	env, c, a := newFakeEnv()
	a.Parts[0].LeaderEpoch = 3
	buf, _, seg := brokerLogDir(t, env, c, data)

	// A window ending now keeps everything stamped (batches 0-48: the last
	// has no later stamp); the batches are from t0, long past.
	st := nemesis.Step{Fault: histories.FLoseUnflushed, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}, Params: &LoseUnflushedParams{Model: ModelWriteback, DirtyExpire: nemesis.Duration(time.Second), WritebackInterval: nemesis.Duration(time.Second)}}
	if err := (&nemesis.Schedule{Steps: []nemesis.Step{st}}).Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := nemesis.NewFault(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if s, err := os.Stat(seg); err != nil || s.Size() != batches[49].Pos {
		t.Errorf("segment %v (%v), want cut before the last batch at %d", s, err, batches[49].Pos)
	}
	env.Recorder.Close()
	evs, _, err := histories.ReadAll(buf)
	if err != nil || len(evs) != 2 {
		t.Fatalf("%d events %v", len(evs), err)
	}
	for _, e := range evs {
		var v histories.NemesisValue
		e.Decode(&v)
		if v.Details["model"] != ModelWriteback || v.Details["dirty_expire"] != "1s" || v.Details["writeback_interval"] != "1s" {
			t.Errorf("%s details %v: want the model and its settings", e.Type, v.Details)
		}
		if e.Type == histories.OK {
			cut := v.Details["0"].([]any)[0].(map[string]any)
			if cut["writeback_point"] != float64(49) || cut["recovery_point"] != float64(20) || cut["log_end_after"] != float64(49) {
				t.Errorf("cut %v", cut)
			}
			if w, _ := v.Details["written_back_before"].(map[string]any); w["0"] == nil {
				t.Errorf("no cut-off time recorded: %v", v.Details)
			}
		}
	}
}

func TestModelValidate(t *testing.T) {
	lu := func(p LoseUnflushedParams) nemesis.Step {
		return nemesis.Step{Fault: histories.FLoseUnflushed, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}, Params: &p}
	}
	for _, tc := range []struct {
		name string
		st   nemesis.Step
		err  string
	}{
		{"writeback", lu(LoseUnflushedParams{Model: ModelWriteback, DirtyExpire: nemesis.Duration(time.Second)}), ""},
		{"recovery point", lu(LoseUnflushedParams{Model: modelRecoveryPoint}), ""},
		{"unknown model", lu(LoseUnflushedParams{Model: "lazyfs"}), `nemesis.steps[0].model: unknown model "lazyfs" (want recovery-point or writeback)`},
		{"expire without writeback", lu(LoseUnflushedParams{DirtyExpire: nemesis.Duration(time.Second)}), "nemesis.steps[0].dirty_expire: only with model writeback"},
		{"interval with recovery point", lu(LoseUnflushedParams{Model: modelRecoveryPoint, WritebackInterval: nemesis.Duration(time.Second)}), "nemesis.steps[0].writeback_interval: only with model writeback"},
		{"negative", lu(LoseUnflushedParams{Model: ModelWriteback, DirtyExpire: -nemesis.Duration(time.Second)}), "nemesis.steps[0].dirty_expire: must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&nemesis.Schedule{Steps: []nemesis.Step{tc.st}}).Validate()
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
	// A model on another fault is refused by its key.
	want := "nemesis.steps[0].model: only for fault lose-unflushed"
	if _, err := nemesis.ParseSchedule([]byte("steps:\n - fault: kill\n   target: {role: leader}\n   model: writeback")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	// Defaults are Linux's; YAML spells the fields as documented.
	s, err := nemesis.ParseSchedule([]byte("steps:\n  - fault: lose-unflushed\n    target: {role: leader}\n    model: writeback\n    writeback_interval: 2s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Steps[0].Params.(*LoseUnflushedParams).writeback(); w == nil || w.DirtyExpire != defaultDirtyExpire || w.Interval != 2*time.Second || w.window() != 32*time.Second {
		t.Errorf("model %+v", w)
	}
	if (&LoseUnflushedParams{}).writeback() != nil {
		t.Error("no model given is not the recovery-point model")
	}
}
