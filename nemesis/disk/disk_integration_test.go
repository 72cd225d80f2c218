//go:build integration

package disk_test

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sys/unix"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/disk"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestDiskFailAndFull: on brokers with two log dirs, the second a bounded
// 64 MiB file system, and the topic's replicas in the second:
//
//  1. disk-fail of broker 1's second dir: the dir refuses writes (EPERM on
//     the host), broker 1 reports it offline (DescribeLogDirs), logs
//     "Stopping serving replicas in dir", stays up with its first dir
//     online, and leaves the ISR; acks=all writes go on with ISR {0, 2}.
//     heal disk leaves no immutable entry; a restart brings the replica back.
//  2. disk-full of broker 2's second dir: no free byte, ENOSPC, offline,
//     out of the ISR; heal disk removes the fill file; a restart again.
//  3. disk-fail of broker 2's first dir (the metadata log's): the broker
//     halts, as Kafka documents; the final heal repairs and starts it.
//
// After teardown no tmpfs mount and no folder of the run is left.
func TestDiskFailAndFull(t *testing.T) {
	h := nt.StartConfig(t, cluster.Config{LogDirs: 2, LogDirSizeBytes: 64 << 20})
	ctx := context.Background()
	dir1 := cluster.LogDirPaths(2)[1]
	err := h.Adm.CreateTopic(ctx, admin.TopicSpec{Name: "disk", Assignment: [][]int32{{0, 1, 2}},
		Configs: map[string]string{"min.insync.replicas": "2"}, LogDir: dir1})
	if err != nil {
		t.Fatal(err)
	}
	h.Env.Topic = "disk"
	for b := int32(0); b < 3; b++ {
		d := logDirOf(t, h, b, dir1)
		nt.Must(t, d.Err == nil && strings.Join(d.Partitions, ",") == "disk-0", "broker %d: %s holds %v (err %v), want disk-0", b, dir1, d.Partitions, d.Err)
	}
	h.Produce(50, "before", false)
	bg, stop := context.WithCancel(ctx)
	defer stop()
	h.WriteInBackground(bg)
	one, zero := 1, 0
	node := func(id int32) *nemesis.Target { return &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{id}} }

	// 1. An unwritable dir.
	logs := brokerLog(t, h, 1)
	begin := time.Now()
	h.Inject(nemesis.Step{Fault: histories.FDiskFail, Target: node(1), Params: &disk.DiskParams{Dir: &one}})
	t.Logf("disk-fail took effect in %s", nt.Since(begin))
	ev, v, ok := nt.Completion(h.NemesisOps(), histories.FDiskFail)
	nt.Must(t, ok && ev.Type == "ok" && nt.Equal(v.Nodes, []int32{1}), "disk-fail completion %s %s", ev.Type, ev.Value)
	t.Logf("recorded: %s", ev.Value)
	for _, want := range []string{`"kafka":"offline: KAFKA_STORAGE_ERROR`, `operation not permitted`, `"partitions":["disk-0"]`} {
		nt.Must(t, strings.Contains(string(ev.Value), want), "disk-fail details lack %s: %s", want, ev.Value)
	}
	t.Logf("ISR {0, 2} after %s", h.Until(nt.ISR(0, 2), 30*time.Second))
	nt.Must(t, h.Running(1), "broker 1 stopped: a failed second dir must leave it up")
	nt.Must(t, logDirOf(t, h, 1, cluster.DataDir).Err == nil, "broker 1's first dir is offline too")
	d := logDirOf(t, h, 1, dir1)
	nt.Must(t, d.Err != nil, "broker 1 reports %s online", dir1)
	t.Logf("broker 1 describes %s: %v", dir1, d.Err)
	line := logLine(brokerLog(t, h, 1)[len(logs):], "Stopping serving replicas in dir "+dir1)
	nt.Must(t, line != "", "broker 1 did not log that it stopped serving %s", dir1)
	t.Logf("broker 1 logged: %s", line)
	host := hostDir(t, h, 1, 1)
	err = os.WriteFile(filepath.Join(host, "x"), nil, 0o644)
	nt.Must(t, errors.Is(err, fs.ErrPermission), "a write into the failed dir: %v, want EPERM", err)
	h.Produce(20, "during-fail", false) // acks=all, ISR {0, 2} >= min.insync 2
	h.Heal(histories.HealDisk)
	_, hv, _ := nt.Completion(h.NemesisOps(), histories.FHeal)
	t.Logf("heal disk: %+v", hv.Details)
	nt.Must(t, immutableEntries(t, hostDir(t, h, 1, 1)) == 0 && immutableEntries(t, hostDir(t, h, 1, 0)) == 0,
		"immutable entries left on broker 1 after heal disk")
	nt.Must(t, os.WriteFile(filepath.Join(host, "x"), nil, 0o644) == nil && os.Remove(filepath.Join(host, "x")) == nil,
		"the healed dir refuses writes")
	h.Inject(nemesis.Step{Fault: histories.FRestart, Target: node(1)})
	t.Logf("ISR {0, 1, 2} %s after the restart", h.Until(nt.ISR(0, 1, 2), 60*time.Second))
	d = logDirOf(t, h, 1, dir1)
	nt.Must(t, d.Err == nil && strings.Join(d.Partitions, ",") == "disk-0", "after the restart broker 1's %s: %v, %v", dir1, d.Partitions, d.Err)

	// 2. A full dir.
	disks := cluster.Disks(h.C)
	free, total, err := disks.Usage(ctx, 2, 1)
	nt.Must(t, err == nil && total == 64<<20, "broker 2's dir 1: %d of %d bytes free (%v), want a 64 MiB file system", free, total, err)
	logs = brokerLog(t, h, 2)
	begin = time.Now()
	h.Inject(nemesis.Step{Fault: histories.FDiskFull, Target: node(2), Params: &disk.DiskParams{Dir: &one}})
	t.Logf("disk-full took effect in %s (%d bytes were free)", nt.Since(begin), free)
	ev, v, ok = nt.Completion(h.NemesisOps(), histories.FDiskFull)
	nt.Must(t, ok && ev.Type == "ok" && nt.Equal(v.Nodes, []int32{2}), "disk-full completion %s %s", ev.Type, ev.Value)
	t.Logf("recorded: %s", ev.Value)
	for _, want := range []string{`"free_bytes":0`, `no space left on device`, `"kafka":"offline: KAFKA_STORAGE_ERROR`} {
		nt.Must(t, strings.Contains(string(ev.Value), want), "disk-full details lack %s: %s", want, ev.Value)
	}
	t.Logf("ISR {0, 1} after %s", h.Until(nt.ISR(0, 1), 30*time.Second))
	nt.Must(t, h.Running(2), "broker 2 stopped: a full second dir must leave it up")
	line = logLine(brokerLog(t, h, 2)[len(logs):], "No space left on device")
	nt.Must(t, line != "", "broker 2 did not log the ENOSPC")
	t.Logf("broker 2 logged: %s", line)
	h.Heal(histories.HealDisk)
	_, err = os.Stat(filepath.Join(hostDir(t, h, 2, 1), disk.FillFile))
	nt.Must(t, errors.Is(err, fs.ErrNotExist), "the fill file is left after heal disk: %v", err)
	after, _, _ := disks.Usage(ctx, 2, 1)
	nt.Must(t, after > 32<<20, "broker 2's dir 1 has %d bytes free after heal disk", after)
	h.Inject(nemesis.Step{Fault: histories.FRestart, Target: node(2)})
	t.Logf("ISR {0, 1, 2} %s after the restart", h.Until(nt.ISR(0, 1, 2), 60*time.Second))

	// 3. The metadata log's dir.
	begin = time.Now()
	h.Inject(nemesis.Step{Fault: histories.FDiskFail, Target: node(2), Params: &disk.DiskParams{Dir: &zero}})
	_, v, _ = nt.Completion(h.NemesisOps(), histories.FDiskFail)
	t.Logf("disk-fail of dir 0 took effect in %s: %+v", nt.Since(begin), v.Details["2"])
	nt.Must(t, strings.Contains(proofKafka(v.Details["2"]), "halted"), "broker 2 with a failed metadata dir: %v", v.Details["2"])
	stop()
	r := nemesis.Runner{Env: h.Env}
	if err := r.FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("ISR {0, 1, 2} %s after the final heal", h.Until(nt.ISR(0, 1, 2), 90*time.Second))
	for _, id := range []int32{0, 1, 2} {
		nt.Must(t, immutableEntries(t, filepath.Dir(hostDir(t, h, id, 0))) == 0, "broker %d: immutable entries after the final heal", id)
	}

	root := filepath.Dir(filepath.Dir(hostDir(t, h, 0, 0)))
	nt.Must(t, len(mountsBelow(t, root)) == 3, "run folder %s: mounts %v, want the 3 bounded dirs", root, mountsBelow(t, root))
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := h.C.Teardown(tctx); err != nil {
		t.Fatal(err)
	}
	nt.Must(t, len(mountsBelow(t, root)) == 0, "mounts left after teardown: %v", mountsBelow(t, root))
	_, err = os.Stat(root)
	nt.Must(t, errors.Is(err, fs.ErrNotExist), "run folder %s left after teardown: %v", root, err)
}

func proofKafka(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["kafka"].(string)
	return s
}

func logDirOf(t *testing.T, h *nt.Harness, broker int32, dir string) admin.LogDirState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dirs, err := h.Adm.LogDirs(ctx, broker)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.Dir == dir {
			return d
		}
	}
	t.Fatalf("broker %d describes no log dir %s: %+v", broker, dir, dirs)
	return admin.LogDirState{}
}

func brokerLog(t *testing.T, h *nt.Harness, id int32) []byte {
	t.Helper()
	b, err := h.C.Logs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func logLine(log []byte, sub string) string {
	sc := bufio.NewScanner(strings.NewReader(string(log)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), sub) {
			return sc.Text()
		}
	}
	return ""
}

// hostDir is broker id's log dir dir on the host (the Docker backend's
// bind source).
func hostDir(t *testing.T, h *nt.Harness, id int32, dir int) string {
	t.Helper()
	f, err := h.C.DirFiles(id, dir)
	if err != nil {
		t.Fatal(err)
	}
	return string(f.(cluster.LocalDir))
}

// immutableEntries counts the entries below root that carry
// FS_IMMUTABLE_FL (lsattr's 'i').
func immutableEntries(t *testing.T, root string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) {
				return nil
			}
			return err
		}
		defer unix.Close(fd)
		flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		if err == nil && flags&0x10 != 0 {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mountsBelow lists the mount points below root (/proc/self/mountinfo).
func mountsBelow(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && strings.HasPrefix(f[4], root+"/") {
			out = append(out, f[4])
		}
	}
	return out
}

// TestDiskSlow: disk-slow limits broker 0's block I/O on its log dir's
// disk. The proof inside Inject is a direct write from the container that
// runs at the limit; Kafka's side is a topic with flush.messages=1, whose
// every append fsyncs: acks=1 sends to broker 0 go from milliseconds to
// hundreds of milliseconds while the limit holds and back after heal
// disk, which leaves no limit behind.
func TestDiskSlow(t *testing.T) {
	h := nt.Start(t, nil)
	ctx := context.Background()
	h.Topic("slow", []int32{0}, map[string]string{"flush.messages": "1"})
	before := sendLatency(t, h, 20, "before")
	begin := time.Now()
	zero := 0
	h.Inject(nemesis.Step{Fault: histories.FDiskSlow, Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &disk.DiskSlowParams{Dir: &zero, Rate: "16KiB"}})
	ev, v, ok := nt.Completion(h.NemesisOps(), histories.FDiskSlow)
	nt.Must(t, ok && ev.Type == "ok" && nt.Equal(v.Nodes, []int32{0}), "disk-slow completion %s %s", ev.Type, ev.Value)
	t.Logf("disk-slow took %s: %s", nt.Since(begin), ev.Value)
	rules, err := cluster.Disks(h.C).Throttles(ctx, 0)
	nt.Must(t, err == nil && len(rules) == 2, "broker 0's limits: %v, %v; want a read and a write limit", rules, err)
	t.Logf("broker 0's block I/O limits: %v", rules)
	during := sendLatency(t, h, 10, "during")
	h.Heal(histories.HealDisk)
	rules, err = cluster.Disks(h.C).Throttles(ctx, 0)
	nt.Must(t, err == nil && len(rules) == 0, "limits left after heal disk: %v, %v", rules, err)
	after := sendLatency(t, h, 20, "after")
	t.Logf("median acks=1 send with flush.messages=1: %s before, %s while slowed to 16 KiB/s, %s after heal", before, during, after)
	nt.Must(t, during >= 100*time.Millisecond && during >= 10*before, "sends while slowed: median %s, before %s: want a stall", during, before)
	nt.Must(t, after < during/5, "sends after heal: median %s, while slowed %s: want them fast again", after, during)
}

// sendLatency sends n records one at a time with acks=1 through one
// client (connected first) and returns the median time to ack.
func sendLatency(t *testing.T, h *nt.Harness, n int, prefix string) time.Duration {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.C.Bootstrap()...), kgo.DefaultProduceTopic(h.Env.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var ds []time.Duration
	for i := range n + 1 {
		begin := time.Now()
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(prefix + "-" + strconv.Itoa(i)), Partition: 0}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
		if i > 0 { // the first pays for the connection and metadata
			ds = append(ds, time.Since(begin))
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2].Round(time.Millisecond)
}
