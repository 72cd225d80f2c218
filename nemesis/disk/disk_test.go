package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// diskCluster is the fake cluster with two log dirs per broker, the second
// bounded, whose disks freeze and fill in memory; diskAdmin answers
// DescribeLogDirs as Kafka would: a frozen or full dir with partitions is
// offline (unless deaf, a Kafka that never writes there).
type diskCluster struct {
	*fakeCluster
	dmu    sync.Mutex
	frozen map[[2]int]bool
	filled map[[2]int]bool
	probes map[[2]int]bool
	// limits are the nodes' block I/O limits; ignore makes Throttle
	// succeed without an effect (dd then runs fast).
	limits map[int32]int64
	ignore bool
}

func (c *diskCluster) Capabilities() cluster.Caps {
	return c.fakeCluster.Capabilities() | cluster.NewCaps(cluster.CapDisk)
}

func (c *diskCluster) Throttle(_ context.Context, id int32, dir int, rate int64) (string, error) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if dir > 0 {
		return "", fmt.Errorf("log dir %d: no block device", dir)
	}
	if rate == 0 {
		delete(c.limits, id)
	} else if !c.ignore {
		c.limits[id] = rate
	}
	return "254:0", nil
}

func (c *diskCluster) Throttles(_ context.Context, id int32) ([]string, error) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if r, ok := c.limits[id]; ok {
		return []string{fmt.Sprintf("read 254:0 %d", r), fmt.Sprintf("write 254:0 %d", r)}, nil
	}
	return nil, nil
}

// Exec answers disk-slow's dd probe as the kernel would: 2 s at the limit.
func (c *diskCluster) Exec(ctx context.Context, id int32, cmd ...string) (string, error) {
	if len(cmd) == 3 && strings.HasPrefix(cmd[2], "dd ") {
		c.dmu.Lock()
		_, slow := c.limits[id]
		c.dmu.Unlock()
		secs := 0.004
		if slow {
			secs = 2.01
		}
		return fmt.Sprintf("8+0 records in\n8+0 records out\n131072 bytes (131 kB, 128 KiB) copied, %g s, 65.2 kB/s\n", secs), nil
	}
	return c.fakeCluster.Exec(ctx, id, cmd...)
}

var _ cluster.Disks = (*diskCluster)(nil)

func key(id int32, dir int) [2]int { return [2]int{int(id), dir} }

func (c *diskCluster) LogDirs(id int32) []cluster.LogDir {
	if n, ok := c.Nodes[id]; !ok || n.Role != cluster.RoleBroker {
		return []cluster.LogDir{{Path: cluster.DataDir}}
	}
	return []cluster.LogDir{{Path: cluster.DataDir}, {Path: cluster.DataDir + "-1", SizeBytes: 8 << 20}}
}

func (c *diskCluster) DirFiles(id int32, dir int) (cluster.LogFiles, error) {
	return diskFiles{c: c, k: key(id, dir)}, nil
}

func (c *diskCluster) SetImmutable(_ context.Context, id int32, dir int, on bool) (int, error) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.frozen[key(id, dir)] == on {
		return 0, nil
	}
	c.frozen[key(id, dir)] = on
	return 5, nil
}

func (c *diskCluster) Fill(_ context.Context, id int32, dir int, name string) (int64, error) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if name != FillFile {
		return 0, fmt.Errorf("fill file %q", name)
	}
	c.filled[key(id, dir)] = true
	return 8 << 20, nil
}

func (c *diskCluster) Usage(_ context.Context, id int32, dir int) (int64, int64, error) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.filled[key(id, dir)] {
		return 0, 8 << 20, nil
	}
	return 8 << 20, 8 << 20, nil
}

// diskFiles is one fake dir: writes fail as the kernel's would.
type diskFiles struct {
	c *diskCluster
	k [2]int
}

func (f diskFiles) WriteFile(_ context.Context, p string, _ []byte) error {
	f.c.dmu.Lock()
	defer f.c.dmu.Unlock()
	switch {
	case f.c.frozen[f.k]:
		return &fs.PathError{Op: "open", Path: p, Err: syscall.EPERM}
	case f.c.filled[f.k]:
		f.c.probes[f.k] = true
		return &fs.PathError{Op: "write", Path: p, Err: syscall.ENOSPC}
	}
	f.c.probes[f.k] = true
	return nil
}

func (f diskFiles) Remove(_ context.Context, p string) error {
	f.c.dmu.Lock()
	defer f.c.dmu.Unlock()
	if f.c.frozen[f.k] {
		return &fs.PathError{Op: "remove", Path: p, Err: syscall.EPERM}
	}
	m := f.c.probes
	if p == FillFile {
		m = f.c.filled
	}
	if !m[f.k] {
		return &fs.PathError{Op: "remove", Path: p, Err: fs.ErrNotExist}
	}
	delete(m, f.k)
	return nil
}

func (diskFiles) ReadFile(context.Context, string) ([]byte, error) { return nil, fs.ErrNotExist }
func (diskFiles) Truncate(context.Context, string, int64) error    { return fs.ErrNotExist }
func (diskFiles) List(context.Context, string) ([]cluster.FileInfo, error) {
	return nil, nil
}

type diskAdmin struct {
	*fakeAdmin
	c    *diskCluster
	deaf bool
}

func (a *diskAdmin) LogDirs(_ context.Context, broker int32) ([]admin.LogDirState, error) {
	var out []admin.LogDirState
	for i, d := range a.c.LogDirs(broker) {
		st := admin.LogDirState{Dir: d.Path}
		if i == 1 {
			st.Partitions = []string{"t-0"}
		}
		a.c.dmu.Lock()
		bad := a.c.frozen[key(broker, i)] || a.c.filled[key(broker, i)]
		a.c.dmu.Unlock()
		if bad && !a.deaf {
			st.Err = errors.New("KAFKA_STORAGE_ERROR: Disk error when trying to access log file on the disk.")
		}
		out = append(out, st)
	}
	return out, nil
}

func newDiskEnv() (*nemesis.Env, *diskCluster, *diskAdmin) {
	c := &diskCluster{fakeCluster: newFakeCluster(), frozen: map[[2]int]bool{},
		filled: map[[2]int]bool{}, probes: map[[2]int]bool{}, limits: map[int32]int64{}}
	a := &diskAdmin{fakeAdmin: newFakeAdmin(c.fakeCluster), c: c}
	return &nemesis.Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

func TestDiskFaults(t *testing.T) {
	one := 1
	zero := 0
	followers := &nemesis.Target{Role: nemesis.RoleFollowers, Partition: 0}
	tests := []struct {
		name    string
		step    nemesis.Step
		deaf    bool
		noDisks bool
		ignore  bool    // the throttle has no effect
		nodes   []int32 // changed on the disk, healed after
		want    string  // in the error; "" for success
		kafka   string  // in each proof's kafka field
		write   string  // in each proof's write field
	}{
		{name: "fail a follower dir", step: nemesis.Step{Fault: histories.FDiskFail, Target: followers, Params: &DiskParams{Dir: &one}},
			nodes: []int32{1, 2}, kafka: "offline: KAFKA_STORAGE_ERROR", write: "operation not permitted"},
		{name: "fill a follower dir", step: nemesis.Step{Fault: histories.FDiskFull, Target: followers, Params: &DiskParams{Dir: &one}},
			nodes: []int32{1, 2}, kafka: "offline: KAFKA_STORAGE_ERROR", write: "no space left on device"},
		{name: "no such dir", step: nemesis.Step{Fault: histories.FDiskFail, Target: followers, Params: &DiskParams{Dir: ptr(2)}},
			want: "broker 1 has no log dir 2: it has 2"},
		{name: "full needs a bounded dir", step: nemesis.Step{Fault: histories.FDiskFull, Target: followers, Params: &DiskParams{Dir: &zero}},
			want: "shares the host's disk"},
		{name: "a controller has no partition logs", step: nemesis.Step{Fault: histories.FDiskFail, Target: &nemesis.Target{Role: nemesis.RoleController}, Params: &DiskParams{Dir: &zero}},
			want: "node 1000 is not a broker"},
		{name: "Kafka does not react", step: nemesis.Step{Fault: histories.FDiskFail, Target: followers, Params: &DiskParams{Dir: &one, OfflineWithin: nemesis.Duration(300 * time.Millisecond)}},
			deaf: true, nodes: []int32{1, 2}, want: `did not report log dir /var/lib/kafka/data-1 offline within 300ms (it says "online"`},
		{name: "slow the leader's first dir", step: nemesis.Step{Fault: histories.FDiskSlow, Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &DiskSlowParams{Dir: &zero, Rate: "64KiB"}},
			nodes: []int32{0}, write: "131072 bytes with O_DIRECT in 2.01 s (63KiB/s; limit 64KiB/s)"},
		{name: "a slow disk that is not", step: nemesis.Step{Fault: histories.FDiskSlow, Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &DiskSlowParams{Dir: &zero, Rate: "64KiB"}},
			ignore: true, nodes: []int32{0}, want: "log dir 0 is not slowed: 131072 bytes with O_DIRECT in 0.00 s"},
		{name: "a bounded dir has no disk to slow", step: nemesis.Step{Fault: histories.FDiskSlow, Target: &nemesis.Target{Role: nemesis.RoleLeader}, Params: &DiskSlowParams{Dir: &one, Rate: "64KiB"}},
			want: "is bounded, a tmpfs"},
		{name: "a backend without disks", step: nemesis.Step{Fault: histories.FDiskFail, Target: followers, Params: &DiskParams{Dir: &one}},
			noDisks: true, want: "the backend cannot fail disks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, c, a := newDiskEnv()
			a.deaf = tt.deaf
			c.ignore = tt.ignore
			if tt.noDisks {
				env.Cluster = c.fakeCluster
			}
			f, err := nemesis.NewFault(tt.step)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			nodes, details, err := f.Inject(ctx, env)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("inject: %v; want %q", err, tt.want)
			}
			if !slices.Equal(nodes, tt.nodes) {
				t.Errorf("nodes %v, want %v", nodes, tt.nodes)
			}
			for _, id := range tt.nodes {
				p, ok := details[fmt.Sprint(id)].(diskProof)
				dir := dirOf(tt.step)
				wantDir := cluster.LogDirPaths(2)[dir]
				if !ok || p.Dir != wantDir || len(p.Partitions) != dir {
					t.Fatalf("broker %d: proof %+v", id, p)
				}
				if !strings.Contains(p.Kafka, tt.kafka) || !strings.Contains(p.Write, tt.write) {
					t.Errorf("broker %d: kafka %q, write %q; want %q, %q", id, p.Kafka, p.Write, tt.kafka, tt.write)
				}
			}
			if err := f.Heal(ctx, env); err != nil {
				t.Fatal(err)
			}
			if anyTrue(c.frozen, c.filled, c.probes) || len(c.limits) > 0 {
				t.Errorf("after heal: frozen %v, filled %v, probes %v, limits %v", c.frozen, c.filled, c.probes, c.limits)
			}
		})
	}
}

// TestHealDisk: heal disk (and all) repairs every dir from the disks'
// state, whatever injected it, and names the brokers it changed.
func TestHealDisk(t *testing.T) {
	env, c, _ := newDiskEnv()
	c.frozen[key(0, 1)] = true
	c.filled[key(2, 1)] = true
	c.limits[1] = 4096
	nodes, err := healDisks(context.Background(), env)
	if err != nil || !slices.Equal(nodes, []int32{0, 1, 2}) {
		t.Fatalf("healDisks: %v, %v; want [0 1 2]", nodes, err)
	}
	if anyTrue(c.frozen, c.filled) || len(c.limits) > 0 {
		t.Errorf("left: frozen %v, filled %v, limits %v", c.frozen, c.filled, c.limits)
	}
	if nodes, err := healDisks(context.Background(), env); err != nil || len(nodes) != 0 {
		t.Errorf("second heal: %v, %v; want nothing to do", nodes, err)
	}
	// The heals a step may name: all, then histories.HealKinds (the
	// seam's healNames).
	if !strings.Contains(strings.Join(histories.HealKinds(), ","), histories.HealDisk) {
		t.Errorf("heal names %v lack %s", histories.HealKinds(), histories.HealDisk)
	}
}

func anyTrue(ms ...map[[2]int]bool) bool {
	for _, m := range ms {
		for _, v := range m {
			if v {
				return true
			}
		}
	}
	return false
}

// dirOf is a disk step's dir.
func dirOf(st nemesis.Step) int {
	switch p := st.Params.(type) {
	case *DiskParams:
		return *p.Dir
	case *DiskSlowParams:
		return *p.Dir
	}
	return -1
}
