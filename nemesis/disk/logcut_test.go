package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// testdata/pl-0/00000000000000000000.log was written by a Kafka 4.1.2
// broker (TestLoseUnflushed with KCHAOS_UPDATE_TESTDATA=1): 50 batches of
// one record each, "flushed-0".."flushed-19" then "unflushed-0".."-29".
// testdata/recovery-point-offset-checkpoint is the broker's checkpoint at
// that moment: pl 0 20.
const realSegment = "testdata/pl-0/00000000000000000000.log"

func readReal(t *testing.T) ([]byte, []Batch) {
	t.Helper()
	data, err := os.ReadFile(realSegment)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ScanBatches(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return data, b
}

func TestParseCheckpoint(t *testing.T) {
	real, err := os.ReadFile("testdata/" + RecoveryPointFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, in string
		want     map[string]int64
		err      string
	}{
		{"real", string(real), map[string]int64{"pl-0": 20}, ""},
		{"several", "0\n3\nt 0 5\nt 1 0\n__consumer_offsets 49 7\n", map[string]int64{"t-0": 5, "t-1": 0, "__consumer_offsets-49": 7}, ""},
		{"empty list", "0\n0\n", map[string]int64{}, ""},
		{"empty file", "", map[string]int64{}, ""},
		{"no version", "\n0\n", nil, "version"},
		{"version", "1\n0\n", nil, `version "1"`},
		{"count", "0\nx\n", nil, `count "x"`},
		{"short", "0\n2\nt 0 5\n", nil, "1 entries, want 2"},
		{"bad line", "0\n1\nt 0\n", nil, `line 3: "t 0"`},
		{"bad offset", "0\n1\nt 0 x\n", nil, "bad partition or offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCheckpoint([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v %v, want %v", got, err, tc.want)
			}
		})
	}
}

func TestScanBatchesRealSegment(t *testing.T) {
	data, batches := readReal(t)
	if len(batches) != 50 {
		t.Fatalf("%d batches, want 50", len(batches))
	}
	pos := int64(0)
	for i, b := range batches {
		if b.BaseOffset != int64(i) || b.LastOffset != int64(i) || b.Pos != pos || b.LeaderEpoch != 0 {
			t.Errorf("batch %d: %+v", i, b)
		}
		pos += b.Size
	}
	if pos != int64(len(data)) {
		t.Errorf("batches cover %d of %d bytes", pos, len(data))
	}
	// The record values are where the broker put them.
	if !bytes.Contains(data[batches[19].Pos:batches[20].Pos], []byte("flushed-19")) ||
		!bytes.Contains(data[batches[20].Pos:batches[21].Pos], []byte("unflushed-0")) {
		t.Error("batches 19 and 20 do not hold flushed-19 and unflushed-0")
	}
}

func TestScanBatchesTornAndForeign(t *testing.T) {
	data, batches := readReal(t)
	badMagic := bytes.Clone(data)
	badMagic[batches[3].Pos+16] = 1
	for _, tc := range []struct {
		name string
		data []byte
		want int
		err  string
	}{
		{"torn batch", data[:len(data)-10], 49, ""},
		{"torn header", data[:batches[49].Pos+5], 49, ""},
		{"preallocated zeros", append(bytes.Clone(data), make([]byte, 4096)...), 50, ""},
		{"empty", nil, 0, ""},
		{"magic 1", badMagic, 3, "magic 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ScanBatches(bytes.NewReader(tc.data), int64(len(tc.data)))
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if len(got) != tc.want {
				t.Errorf("%d batches, want %d", len(got), tc.want)
			}
		})
	}
}

// layout writes a partition dir from pieces of the real segment: one
// segment per split, named by its first batch's offset, each with index
// files, plus producer snapshots.
func layout(t *testing.T, data []byte, batches []Batch, splits ...int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pl-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bounds := append(append([]int{0}, splits...), len(batches))
	for i := 0; i+1 < len(bounds); i++ {
		from, to := batches[bounds[i]], batches[bounds[i+1]-1]
		stem := filepath.Join(dir, fmt.Sprintf("%020d", from.BaseOffset))
		write(t, stem+".log", data[from.Pos:to.Pos+to.Size])
		write(t, stem+".index", []byte("idx"))
		write(t, stem+".timeindex", []byte("tidx"))
		write(t, stem+".snapshot", []byte("snap"))
	}
	write(t, filepath.Join(dir, "leader-epoch-checkpoint"), []byte("0\n1\n0 0\n"))
	return dir
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// brokerLogDir gives broker 0 of the fake cluster a log dir whose t-0
// holds the segment data, with a recovery-point checkpoint at offset 20,
// and env a recorder writing to buf: the set-up of the power-loss tests.
func brokerLogDir(t *testing.T, env *nemesis.Env, c *fakeCluster, data []byte) (buf *bytes.Buffer, logDir, seg string) {
	t.Helper()
	buf = &bytes.Buffer{}
	env.Recorder = histories.NewRecorder(buf)
	logDir = t.TempDir()
	c.LogDirs = map[int32]string{0: logDir}
	os.MkdirAll(filepath.Join(logDir, "t-0"), 0o755)
	seg = filepath.Join(logDir, "t-0", "00000000000000000000.log")
	write(t, seg, data)
	write(t, filepath.Join(logDir, RecoveryPointFile), []byte("0\n1\nt 0 20\n"))
	return buf, logDir, seg
}

func TestCutLogRealSegment(t *testing.T) {
	data, batches := readReal(t)
	seg := func(base int64) string { return fmt.Sprintf("%020d", base) }
	for _, tc := range []struct {
		name     string
		splits   []int
		rp       int64
		after    int64
		sizes    map[string]int64 // remaining .log files and their sizes
		gone     []string         // files that must be deleted
		kept     []string         // files that must remain
		cut, del int64
	}{
		{"at the real recovery point", nil, 20, 20,
			map[string]int64{seg(0): batches[20].Pos},
			[]string{seg(0) + ".index", seg(0) + ".timeindex", seg(0) + ".snapshot"},
			[]string{"leader-epoch-checkpoint"}, int64(len(data)) - batches[20].Pos, 3},
		{"nothing flushed", nil, 0, 0, map[string]int64{seg(0): 0}, nil, nil, int64(len(data)), 3},
		{"all flushed", nil, 50, 50, map[string]int64{seg(0): int64(len(data))}, nil,
			[]string{seg(0) + ".index", seg(0) + ".snapshot"}, 0, 0},
		{"beyond the end", nil, 99, 50, map[string]int64{seg(0): int64(len(data))}, nil, nil, 0, 0},
		{"later segment deleted", []int{30}, 20, 20, map[string]int64{seg(0): batches[20].Pos},
			[]string{seg(30) + ".log", seg(30) + ".index", seg(30) + ".timeindex", seg(30) + ".snapshot"}, nil,
			int64(len(data)) - batches[20].Pos, 7},
		{"cut in the active segment", []int{30}, 35, 35,
			map[string]int64{seg(0): batches[30].Pos, seg(30): batches[35].Pos - batches[30].Pos},
			[]string{seg(30) + ".index", seg(30) + ".timeindex", seg(0) + ".snapshot"},
			[]string{seg(0) + ".index", seg(0) + ".timeindex"}, int64(len(data)) - batches[35].Pos, 4},
		{"at a segment boundary", []int{10, 30}, 30, 30,
			map[string]int64{seg(0): batches[10].Pos, seg(10): batches[30].Pos - batches[10].Pos, seg(30): 0},
			nil, []string{seg(10) + ".index"}, int64(len(data)) - batches[30].Pos, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := layout(t, data, batches, tc.splits...)
			res, err := cutLocal(dir, tc.rp)
			if err != nil {
				t.Fatal(err)
			}
			if res.Partition != "pl-0" || res.RecoveryPoint != tc.rp || res.EndBefore != 50 || res.EndAfter != tc.after ||
				res.BytesCut != tc.cut || int64(res.FilesDeleted) != tc.del || res.SplitBatch {
				t.Errorf("result %+v; want end 50 -> %d, %d bytes and %d files cut", res, tc.after, tc.cut, tc.del)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
			if len(logs) != len(tc.sizes) {
				t.Errorf("segments left: %v, want %v", logs, tc.sizes)
			}
			for stem, size := range tc.sizes {
				st, err := os.Stat(filepath.Join(dir, stem+".log"))
				if err != nil || st.Size() != size {
					t.Errorf("%s.log: %v bytes (%v), want %d", stem, st, err, size)
				}
			}
			for _, f := range tc.gone {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s not deleted", f)
				}
			}
			for _, f := range tc.kept {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s deleted", f)
				}
			}
			// What is left is a well-formed log ending at the cut.
			if res.EndAfter > 0 {
				again, err := cutLocal(dir, 1<<40)
				if err != nil || again.EndBefore != tc.after {
					t.Errorf("after the cut the log ends at %d (%v), want %d", again.EndBefore, err, tc.after)
				}
			}
		})
	}
}

// TestCutLogSplitBatch: a batch that spans the recovery point is dropped
// whole. The real batches hold one record each, so two are rewritten to
// hold offsets 0-4 and 5-9 (the CRC is not checked by the cut).
func TestCutLogSplitBatch(t *testing.T) {
	data, batches := readReal(t)
	var buf []byte
	for i, base := range []int64{0, 5} {
		b := bytes.Clone(data[batches[i].Pos : batches[i].Pos+batches[i].Size])
		binary.BigEndian.PutUint64(b[0:8], uint64(base))
		binary.BigEndian.PutUint32(b[23:27], 4)
		buf = append(buf, b...)
	}
	dir := filepath.Join(t.TempDir(), "t-0")
	os.MkdirAll(dir, 0o755)
	write(t, filepath.Join(dir, "00000000000000000000.log"), buf)
	res, err := cutLocal(dir, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !res.SplitBatch || res.EndBefore != 10 || res.EndAfter != 5 || res.BytesCut != batches[1].Size {
		t.Errorf("result %+v; want a split batch dropped, end 10 -> 5", res)
	}
}

func TestCutToRecoveryPoints(t *testing.T) {
	data, _ := readReal(t)
	logDir := t.TempDir()
	ckpt, _ := os.ReadFile("testdata/" + RecoveryPointFile)
	write(t, filepath.Join(logDir, RecoveryPointFile), ckpt)
	write(t, filepath.Join(logDir, cleanShutdownFile), nil)
	for _, d := range []string{"pl-0", "other-3", "__cluster_metadata-0", "pl-0.0f3a-delete", "notes"} {
		os.MkdirAll(filepath.Join(logDir, d), 0o755)
		write(t, filepath.Join(logDir, d, "00000000000000000000.log"), data)
	}
	res, err := cutToRecoveryPoints(context.Background(), cluster.LocalDir(logDir))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(res)
	// other-3 is not in the checkpoint: recovery point 0, as Kafka assumes.
	want := fmt.Sprint([]cutResult{
		{Partition: "other-3", RecoveryPoint: 0, EndBefore: 50, EndAfter: 0, BytesCut: int64(len(data))},
		{Partition: "pl-0", RecoveryPoint: 20, EndBefore: 50, EndAfter: 20, BytesCut: res[1].BytesCut},
	})
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, d := range []string{"__cluster_metadata-0", "pl-0.0f3a-delete", "notes"} {
		st, err := os.Stat(filepath.Join(logDir, d, "00000000000000000000.log"))
		if err != nil || st.Size() != int64(len(data)) {
			t.Errorf("%s touched: %v %v", d, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(logDir, cleanShutdownFile)); err == nil {
		t.Error(".kafka_cleanshutdown left: Kafka would skip recovery")
	}
	// A log dir without a checkpoint cuts everything.
	os.Remove(filepath.Join(logDir, RecoveryPointFile))
	write(t, filepath.Join(logDir, "pl-0", "00000000000000000000.log"), data)
	res, err = cutToRecoveryPoints(context.Background(), cluster.LocalDir(logDir))
	if err != nil || res[1].EndAfter != 0 {
		t.Errorf("no checkpoint: %+v %v", res, err)
	}
}

// cutLocal cuts a partition dir on the local file system through
// cluster.LocalDir, as the Docker backend's Files does.
func cutLocal(dir string, rp int64) (cutResult, error) {
	return cutLog(context.Background(), cluster.LocalDir(filepath.Dir(dir)), filepath.Base(dir), rp)
}
