package disk

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// fakeCluster is the room's in-memory cluster, the seam's test cluster
// (nemesis/fake_test.go) cut down to what the disk faults use: controller
// 1000 and brokers 0, 1 and 2 whose processes die and start, and log dirs
// on the local disk for the power loss (logDirs; tests set them). It runs
// no command: the disk faults' only one, disk-slow's dd, is diskCluster's.
type fakeCluster struct {
	mu      sync.Mutex
	nodes   map[int32]cluster.Node
	state   map[int32]cluster.NodeState
	logDirs map[int32]string
}

var _ cluster.Nodes = (*fakeCluster)(nil)

func newFakeCluster() *fakeCluster {
	f := &fakeCluster{nodes: map[int32]cluster.Node{}, state: map[int32]cluster.NodeState{}}
	for _, n := range []cluster.Node{{ID: 1000, Role: cluster.RoleController}, {ID: 0, Role: cluster.RoleBroker},
		{ID: 1, Role: cluster.RoleBroker}, {ID: 2, Role: cluster.RoleBroker}} {
		n.IP = fmt.Sprintf("10.9.0.%d", 20+n.ID%1000)
		f.nodes[n.ID], f.state[n.ID] = n, cluster.NodeState{Running: true}
	}
	return f
}

func (f *fakeCluster) role(r cluster.Role) []cluster.Node {
	var out []cluster.Node
	for _, n := range f.nodes {
		if n.Role == r {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b cluster.Node) int { return int(a.ID - b.ID) })
	return out
}

func (f *fakeCluster) Brokers() []cluster.Node     { return f.role(cluster.RoleBroker) }
func (f *fakeCluster) Controllers() []cluster.Node { return f.role(cluster.RoleController) }
func (f *fakeCluster) Node(id int32) (cluster.Node, bool) {
	n, ok := f.nodes[id]
	return n, ok
}
func (f *fakeCluster) Bootstrap() []string { return nil }

// Capabilities: processes and log dirs on the local disk; disks are
// diskCluster's, so that a test can take them away.
func (f *fakeCluster) Capabilities() cluster.Caps {
	return cluster.AllCaps() &^ cluster.NewCaps(cluster.CapDisk, cluster.CapUpgrade, cluster.CapClientCut)
}

// Files serves a node's log dir from the test's folder (logDirs).
func (f *fakeCluster) Files(id int32) (cluster.LogFiles, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.logDirs[id]; ok {
		return cluster.LocalDir(d), nil
	}
	return nil, fmt.Errorf("node %d: no log dir in the fake cluster", id)
}

// set gives node id the state to, refusing what Docker refuses (need).
func (f *fakeCluster) set(id int32, what string, need func(cluster.NodeState) bool, to cluster.NodeState) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.state[id]
	if !ok || !need(st) {
		return fmt.Errorf("node %d: %s: not possible in state %+v", id, what, st)
	}
	f.state[id] = to
	return nil
}

func always(cluster.NodeState) bool     { return true }
func running(st cluster.NodeState) bool { return st.Running }

func (f *fakeCluster) Kill(_ context.Context, id int32) error {
	return f.set(id, "kill", running, cluster.NodeState{ExitCode: 137})
}
func (f *fakeCluster) Start(_ context.Context, id int32) error {
	return f.set(id, "start", always, cluster.NodeState{Running: true})
}
func (f *fakeCluster) Stop(_ context.Context, id int32, _ time.Duration) error {
	return f.set(id, "stop", always, cluster.NodeState{})
}
func (f *fakeCluster) Pause(_ context.Context, id int32) error {
	return f.set(id, "pause", running, cluster.NodeState{Running: true, Paused: true})
}
func (f *fakeCluster) Resume(_ context.Context, id int32) error {
	return f.set(id, "resume", func(st cluster.NodeState) bool { return st.Paused }, cluster.NodeState{Running: true})
}
func (f *fakeCluster) Signal(context.Context, int32, string) error {
	return fmt.Errorf("fake cluster: no signals")
}
func (f *fakeCluster) Exec(_ context.Context, id int32, cmd ...string) (string, error) {
	return "", fmt.Errorf("fake exec on node %d: unexpected %q", id, cmd)
}

func (f *fakeCluster) State(_ context.Context, id int32) (cluster.NodeState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.state[id]
	if !ok {
		return st, fmt.Errorf("node %d: no such node", id)
	}
	return st, nil
}

// fakeAdmin answers what the disk faults ask: partition t-0, led by
// broker 0 with every broker in sync, the running brokers, the active
// controller. Any other admin call panics (the nil nemesis.Admin).
type fakeAdmin struct {
	nemesis.Admin
	c     *fakeCluster
	parts []admin.PartitionState
}

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
		Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func (a *fakeAdmin) Describe(context.Context, string) ([]admin.PartitionState, error) {
	return slices.Clone(a.parts), nil
}

func (a *fakeAdmin) LiveBrokers(ctx context.Context) ([]int32, error) {
	var out []int32
	for _, b := range a.c.Brokers() {
		if st, _ := a.c.State(ctx, b.ID); st.Running && !st.Paused {
			out = append(out, b.ID)
		}
	}
	return out, nil
}

func (a *fakeAdmin) ActiveController(context.Context) (int32, error) { return 1000, nil }

func (a *fakeAdmin) Quorum(context.Context) (histories.QuorumValue, error) {
	return histories.QuorumValue{LeaderID: 1000, LeaderEpoch: 1, Voters: []histories.QuorumReplica{{ID: 1000}}}, nil
}

func newFakeEnv() (*nemesis.Env, *fakeCluster, *fakeAdmin) {
	c := newFakeCluster()
	a := newFakeAdmin(c)
	return &nemesis.Env{Cluster: c, Admin: a, Topic: "t", Seed: 3}, c, a
}

// TestFakeCapabilitiesMatchCode: the fakes declare what they implement,
// as the real backends must (cluster.CheckCapabilities).
func TestFakeCapabilitiesMatchCode(t *testing.T) {
	f := newFakeCluster()
	for _, n := range []cluster.Nodes{f, &diskCluster{fakeCluster: f}} {
		if err := cluster.CheckCapabilities(n); err != nil {
			t.Error(err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
