//go:build integration

package explore

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/quorum"
)

// TestExploreReusesTheCluster (issue 24, item 4): three explore runs of s2
// (10 s workloads, pauses) share one cluster: runs 2 and 3 ran on run 1's
// containers (run.json), each under its own topic, with a history that
// holds only that topic's records and a valid verdict. Then, on a
// Pipeline of its own, a run with a fault that leaves state (set-config)
// reuses the cluster it found but refuses to leave it, and the run after
// it starts fresh.
//
//	KCHAOS_ALL_SCENARIOS=1 TESTCONTAINERS_RYUK_DISABLED=true flock /tmp/kchaos-cluster.lock go test -tags integration -count=1 -p 1 -run TestExploreReusesTheCluster -v ./harness/explore
func TestExploreReusesTheCluster(t *testing.T) {
	testenv.AllScenarios(t)
	testenv.Docker(t)
	sets := []string{"workload.duration=10s"}
	if v := testenv.KafkaVersion(); v != "" {
		sets = append(sets, "cluster.kafka="+v)
	}
	s, err := scenario.Load("s2", sets)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Explorable(s, []string{"pause"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	store := testenv.Store(t)

	pipe := newPipeline(harness.Options{}, true)
	defer pipe.Close()
	sum, dir, err := explore(ctx, Config{Scenario: e, Runs: 3, Seed: 11, Store: store, NoShrink: true, Keep: true,
		Ahead: pipe.ahead, Close: pipe.Close}, pipe.Run)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", e.Name, "2*")) // run folders are timestamps
	if len(runs) != 3 || len(sum.RunRecords) != 3 {
		t.Fatalf("%d run folders, %d records: want 3", len(runs), len(sum.RunRecords))
	}
	infos := make([]histories.RunInfo, 3)
	for i, run := range runs { // folder names sort by time
		infos[i] = readInfo(t, run)
		t.Logf("run %d: %s, topic %s, cluster %+v, idle before %.1f s", i, filepath.Base(run), infos[i].Topic, infos[i].Cluster, sum.RunRecords[i].IdleSeconds)
		if r := sum.RunRecords[i]; r.Err != "" || r.Verdict != checker.Valid.String() {
			t.Errorf("run %d: verdict %s, error %q", i, r.Verdict, r.Err)
		}
		if n := onlyTopic(t, run, infos[i].Topic); n == 0 {
			t.Errorf("run %d: no op of topic %s in its history", i, infos[i].Topic)
		}
	}
	if infos[0].Cluster == nil || infos[0].Cluster.Reused() || len(infos[0].Cluster.Containers) == 0 {
		t.Fatalf("run 1: cluster %+v, want its own with its containers", infos[0].Cluster)
	}
	for i := 1; i < 3; i++ {
		u := infos[i].Cluster
		if u == nil || u.ReusedFrom != filepath.Base(runs[i-1]) || u.RunsBefore != i || u.RunID != infos[0].Cluster.RunID {
			t.Errorf("run %d: cluster %+v, want run 1's (%s) reused from %s", i+1, u, infos[0].Cluster.RunID, filepath.Base(runs[i-1]))
			continue
		}
		if !maps.Equal(u.Containers, infos[0].Cluster.Containers) {
			t.Errorf("run %d: containers %v, run 1's %v", i+1, u.Containers, infos[0].Cluster.Containers)
		}
		if sum.RunRecords[i].ReusedFrom != u.ReusedFrom {
			t.Errorf("explore.json run %d: reused_from %q, run.json %q", i, sum.RunRecords[i].ReusedFrom, u.ReusedFrom)
		}
		for j := 0; j < i; j++ {
			if infos[j].Topic == infos[i].Topic {
				t.Errorf("runs %d and %d share topic %s", j+1, i+1, infos[i].Topic)
			}
		}
		// Its own slice of the node logs: not the first run's lines.
		// (LogManager logs "Created log for partition <topic>-<p>".)
		b, err := os.ReadFile(filepath.Join(runs[i], "logs", "broker-0.log"))
		created := func(topic string) bool { return strings.Contains(string(b), "Created log for partition "+topic+"-0 ") }
		if err != nil || created(infos[0].Topic) || !created(infos[i].Topic) {
			t.Errorf("run %d: broker-0.log (%v): run 1's topic created in it %v, its own %v", i+1, err, created(infos[0].Topic), created(infos[i].Topic))
		}
	}
	if pipe.Reused != 2 {
		t.Errorf("Pipeline.Reused %d, want 2", pipe.Reused)
	}

	// A fault that leaves state: the run reuses, then refuses.
	p := newPipeline(harness.Options{}, true)
	defer p.Close()
	a := withSeed(e, 21)
	b := *withSeed(s, 22)
	b.Nemesis = nemesis.Schedule{Steps: []nemesis.Step{
		{Wait: nemesis.Duration(2 * time.Second)},
		{Fault: "set-config", Params: &quorum.SetConfigParams{Config: map[string]*string{"retention.ms": ptr("3600000")}}},
	}}
	c := withSeed(e, 23)
	st := filepath.Join(store, "refusal")
	var out [3]judged
	for i, step := range []struct {
		s, next *scenario.Scenario
	}{{a, &b}, {&b, c}, {c, nil}} {
		p.ahead(step.next, st)
		if out[i], err = p.Run(ctx, step.s, st); err != nil {
			t.Fatalf("run %c: %v", 'A'+i, err)
		}
		t.Logf("run %c: %s, reused from %q, refused %q", 'A'+i, out[i].Dir, out[i].ReusedFrom, out[i].ReuseRefused)
	}
	infoA, infoB, infoC := readInfo(t, out[0].Dir), readInfo(t, out[1].Dir), readInfo(t, out[2].Dir)
	if out[0].ReuseRefused != "" || infoB.Cluster.ReusedFrom != filepath.Base(out[0].Dir) {
		t.Errorf("run B: reused from %q (A refused %q), want A's cluster", infoB.Cluster.ReusedFrom, out[0].ReuseRefused)
	}
	if !strings.Contains(out[1].ReuseRefused, "set-config") {
		t.Errorf("run B: refused %q, want set-config named", out[1].ReuseRefused)
	}
	if infoC.Cluster.Reused() || infoC.Cluster.RunID == infoA.Cluster.RunID || maps.Equal(infoC.Cluster.Containers, infoA.Cluster.Containers) {
		t.Errorf("run C: cluster %+v after a refusal, want a fresh one (A's %s)", infoC.Cluster, infoA.Cluster.RunID)
	}
	for i, o := range out {
		if o.Verdict != checker.Valid {
			t.Errorf("run %c: verdict %s %v", 'A'+i, o.Verdict, o.Reasons)
		}
	}
}

func ptr(s string) *string { return &s }

func readInfo(t *testing.T, dir string) histories.RunInfo {
	t.Helper()
	info, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// onlyTopic fails the test for any op of the run's history that names
// another topic than topic, and counts those that name it.
func onlyTopic(t *testing.T, dir, topic string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, checker.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		var ev histories.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var v struct {
			Topic string `json:"topic"`
		}
		if json.Unmarshal(ev.Value, &v) != nil || v.Topic == "" {
			continue
		}
		if v.Topic != topic {
			t.Errorf("%s: op %d names topic %s, the run's is %s", dir, ev.Index, v.Topic, topic)
			return n
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
