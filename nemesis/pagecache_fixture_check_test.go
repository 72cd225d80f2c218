package nemesis

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// pageCacheCluster is the fake cluster with the fixture's capability.
type pageCacheCluster struct {
	*fakeCluster
	mu   sync.Mutex
	held map[int32]bool
}

func (c *pageCacheCluster) Capabilities() cluster.Caps {
	return c.fakeCluster.Capabilities() | cluster.NewCaps(capPageCache)
}

func (c *pageCacheCluster) HoldPageCache(_ context.Context, id int32, on bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held[id] = on
	return nil
}

func (c *pageCacheCluster) holding() []int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int32
	for id, on := range c.held {
		if on {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// TestFixtureKind: a lasting kind with its own capability and heal, added
// as one file and one registry line, is decided, validated (refused on a
// backend without its capability, and against the scenario), planned,
// injected, and healed through its own heal, with its facts in the
// history's vocabulary.
func TestFixtureKind(t *testing.T) {
	defer register(dropPageCacheKind)()

	k, ok := LookupKind(fDropPageCache)
	if !ok {
		t.Fatal("not registered")
	}
	checkKindDecides(t, k)
	if f, _ := histories.LookupFault(fDropPageCache); f.Effect != histories.Lasting || f.Heal != fDropPageCache ||
		!histories.HealCovers(fDropPageCache, fDropPageCache) || histories.HealCovers(histories.FKill, fDropPageCache) {
		t.Errorf("history facts %+v", f)
	}

	s, err := ParseSchedule([]byte("steps:\n - {fault: drop-page-cache-test, target: {role: nodes, nodes: [1]}, min_brokers: 3}\n - heal: drop-page-cache-test"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSchedule([]byte("steps:\n - {fault: drop-page-cache-test}")); err == nil ||
		!strings.Contains(err.Error(), "nemesis.steps[0].target: fault drop-page-cache-test needs a target") {
		t.Errorf("no target: %v", err)
	}
	err = s.CheckBackend("ssh", cluster.NewCaps(cluster.CapKill))
	if want := `nemesis.steps[0].fault: drop-page-cache-test needs capability "page-cache", which backend ssh does not have`; err == nil || err.Error() != want {
		t.Errorf("backend without it: %v, want %s", err, want)
	}
	if err := s.CheckBackend("docker", cluster.AllCaps()); err != nil {
		t.Errorf("backend with it: %v", err)
	}
	if errs := s.CheckScenario(ScenarioView{Brokers: 2, Partitions: 1}); len(errs) != 1 ||
		errs[0].Error() != "nemesis.steps[0].min_brokers: 3: the cluster has 2 brokers" {
		t.Errorf("against a 2-broker scenario: %v", errs)
	}

	plan, err := Plan(RandomSchedule{Seed: 1, Interval: Duration(2 * time.Second), Duration: Duration(4 * time.Second),
		Faults: []string{fDropPageCache}}, []int32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) < 3 || plan[0].Fault != fDropPageCache || plan[2].Heal != fDropPageCache {
		t.Errorf("plan %+v: want the fault, a wait and its own heal", plan)
	}

	c := &pageCacheCluster{fakeCluster: newFakeCluster(), held: map[int32]bool{}}
	var buf bytes.Buffer
	e := &Env{Cluster: c, Recorder: histories.NewRecorder(&buf)}
	f, err := NewFault(s.Steps[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Inject(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if got := c.holding(); !slices.Equal(got, []int32{1}) {
		t.Errorf("after inject, holding %v, want [1]", got)
	}
	if err := e.Heal(context.Background(), fDropPageCache, time.Second); err != nil {
		t.Fatal(err)
	}
	if got := c.holding(); len(got) != 0 {
		t.Errorf("after its heal, still holding %v", got)
	}
	if !strings.Contains(buf.String(), `"page_cache_back":[0,1,2]`) {
		t.Errorf("the heal op does not say what it did:\n%s", buf.String())
	}
}
