package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

func loadS2(t *testing.T, sets ...string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load("s2", sets)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReusable: only a Docker cluster without a remote tier, under a
// workload without the metadata clients' shared topic names, may be kept
// for another run.
func TestReusable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *scenario.Scenario)
		want   string // part of the reason; "" reusable
	}{
		{"docker", func(*scenario.Scenario) {}, ""},
		{"ssh", func(s *scenario.Scenario) { s.Cluster.Backend = scenario.BackendSSH }, "operator's"},
		{"tiered", func(s *scenario.Scenario) { s.Cluster.Tiered = &scenario.TieredSpec{} }, "remote tier"},
		{"metadata workload", func(s *scenario.Scenario) { s.Workload.Metadata.Clients = 1 }, "kchaos-meta-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loadS2(t)
			tc.change(s)
			got := Reusable(s)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("Reusable: %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSameCluster: runs share a cluster only when they would start the
// same one; seeds, topics, workloads and schedules do not matter.
func TestSameCluster(t *testing.T) {
	base := loadS2(t)
	for _, tc := range []struct {
		name string
		sets []string
		want bool
	}{
		{"itself", nil, true},
		{"topic config and workload", []string{"topic.configs.min.insync.replicas=2", "workload.duration=10s", "seed=9"}, true},
		{"version", []string{"cluster.kafka=3.9.2"}, false},
		{"brokers", []string{"cluster.brokers=4"}, false},
		{"elr", []string{"cluster.elr=on"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameCluster(base, loadS2(t, tc.sets...)); got != tc.want {
				t.Errorf("SameCluster: %v, want %v", got, tc.want)
			}
		})
	}
	fresh := base.Fresh(freshSuffix(1))
	if !sameCluster(base, fresh) {
		t.Error("a run under fresh names does not fit its cluster")
	}
}

// logCluster is a cluster whose node logs grow between runs; what a
// test does not need panics (nil embedded interface).
type logCluster struct {
	cluster.Cluster
	logs   map[int32]string
	states map[int32]cluster.NodeState
}

func (c *logCluster) Controllers() []cluster.Node {
	return []cluster.Node{{ID: 1000, Role: cluster.RoleController}}
}

func (c *logCluster) Brokers() []cluster.Node {
	return []cluster.Node{{ID: 0, Role: cluster.RoleBroker}, {ID: 1, Role: cluster.RoleBroker}}
}

func (c *logCluster) Logs(_ context.Context, id int32) ([]byte, error) {
	return []byte(c.logs[id]), nil
}

func (c *logCluster) State(_ context.Context, id int32) (cluster.NodeState, error) {
	return c.states[id], nil
}

// TestWriteLogsSlices: each run on a kept cluster gets the part of each
// node's log written since the run before it handed the cluster over,
// named as Teardown's copy names them.
func TestWriteLogsSlices(t *testing.T) {
	c := &logCluster{logs: map[int32]string{}}
	h := &held{c: c, offsets: map[int32]int{}}
	runs := [][3]string{ // controller 1000, broker 0, broker 1: what each run adds
		{"c-a\n", "b0-a\n", "b1-a\n"},
		{"", "b0-b\n", "b1-b\nb1-c\n"},
		{"c-c\n", "b0-c\n", ""},
	}
	for i, add := range runs {
		c.logs[1000] += add[0]
		c.logs[0] += add[1]
		c.logs[1] += add[2]
		dir := filepath.Join(t.TempDir(), "logs")
		if err := h.writeLogs(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		for j, name := range []string{"controller-1000.log", "broker-0.log", "broker-1.log"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != add[j] {
				t.Errorf("run %d, %s: %q, want %q", i, name, b, add[j])
			}
		}
	}
}

// TestRefusal: a run leaves its cluster to the next only when it ended
// well, healed, and invoked no fault that leaves state; each refusal says
// why. (The health check that follows needs a real cluster: the reuse
// integration test.)
func TestRefusal(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		err    error
		faults []string
		heal   error
		noRun  bool
		want   string
	}{
		{"failed", context.Background(), errors.New("final read: boom"), nil, nil, false, "the run failed: final read: boom"},
		{"interrupted", cancelled, nil, nil, nil, false, "interrupted"},
		{"no schedule", context.Background(), nil, nil, nil, true, "did not run"},
		{"heal failed", context.Background(), nil, []string{histories.FKill}, errors.New("broker 2 not live"), false, "final heal failed: broker 2 not live"},
		{"remove-controller", context.Background(), nil, []string{histories.FPause, histories.FRemoveController}, nil, false, "remove-controller: changes the controller quorum's voters"},
		{"disk-fail", context.Background(), nil, []string{histories.FDiskFail}, nil, false, "disk-fail: fails a log dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{}
			if !tc.noRun {
				r.env = &nemesis.Env{}
				r.runner = &nemesis.Runner{Env: r.env, HealErr: tc.heal}
				rec, err := histories.Create(filepath.Join(t.TempDir(), "history.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				defer rec.Close()
				r.env.Recorder = rec
				for _, f := range tc.faults {
					// A fault that failed is counted: it may be half
					// applied.
					_ = r.env.Inject(context.Background(), failing(f))
				}
			}
			got := r.refusal(tc.ctx, nil, &held{}, tc.err)
			if !strings.Contains(got, tc.want) {
				t.Errorf("refusal %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckHealthNodes: a node not running or paused after the run is
// reported before the cluster is asked anything.
func TestCheckHealthNodes(t *testing.T) {
	up := cluster.NodeState{Running: true}
	for _, tc := range []struct {
		name   string
		states map[int32]cluster.NodeState
		want   string
	}{
		{"stopped broker", map[int32]cluster.NodeState{1000: up, 0: up, 1: {}}, "broker 1 is not running"},
		{"paused controller", map[int32]cluster.NodeState{1000: {Running: true, Paused: true}, 0: up, 1: up}, "controller 1000 is paused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkHealth(context.Background(), &logCluster{states: tc.states}, nil)
			if err == nil || err.Error() != tc.want {
				t.Errorf("checkHealth: %v, want %q", err, tc.want)
			}
		})
	}
}

// failing is a fault of kind name whose injection fails.
type failing string

func (f failing) Name() string { return string(f) }
func (f failing) Inject(context.Context, *nemesis.Env) ([]int32, map[string]any, error) {
	return nil, nil, errors.New("not here")
}
func (f failing) Heal(context.Context, *nemesis.Env) error { return nil }
