//go:build integration

package docker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/internal/testenv"
)

// startCluster starts 1 controller + 3 brokers on racks a: [0,1], b: [2]
// and registers its teardown.
func startCluster(t *testing.T, elr *bool) *docker.Cluster {
	t.Helper()
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logs := t.TempDir()
	begin := time.Now()
	c, err := docker.Start(ctx, cluster.Config{
		KafkaVersion: testenv.KafkaVersion(),
		Racks:        cluster.Racks{"a": {0, 1}, "b": {2}},
		ELR:          elr,
		LogDir:       logs,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("cluster %s ready in %s", c.RunID(), time.Since(begin).Round(100*time.Millisecond))
	// Registered first, so it runs after the teardown copied the logs.
	t.Cleanup(func() {
		for _, n := range []string{"broker-0.log", "controller-1000.log"} {
			b, err := os.ReadFile(filepath.Join(logs, n))
			if err != nil || !strings.Contains(string(b), "Kafka") {
				t.Errorf("log %s not copied before teardown (err %v, %d bytes)", n, err, len(b))
			}
		}
	})
	testenv.TearDown(t, c, docker.Labelled)
	return c
}

func waitISR(t *testing.T, adm *admin.Client, topic string, want []int32, limit time.Duration) admin.PartitionState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var last admin.PartitionState
	for {
		parts, err := adm.Describe(ctx, topic)
		if err == nil && len(parts) > 0 {
			last = parts[0]
			if slices.Equal(last.ISR, want) {
				return last
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("ISR of %s-0 did not become %v within %s; last %+v", topic, want, limit, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func produce(t *testing.T, c *docker.Cluster, topic string, n int, prefix string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: []byte(fmt.Sprintf("%s-%d", prefix, i)), Partition: 0}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

func readAll(t *testing.T, c *docker.Cluster, topic string, want int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []string
	for len(got) < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records: %v", len(got), want, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	return got
}

func TestClusterProduceDescribePause(t *testing.T) {
	on := true
	c := startCluster(t, &on)
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx := context.Background()
	for _, b := range c.Brokers() {
		want := map[int32]string{0: "a", 1: "a", 2: "b"}[b.ID]
		if b.Rack != want {
			t.Errorf("broker %d rack %q, want %q", b.ID, b.Rack, want)
		}
	}
	err = adm.CreateTopic(ctx, admin.TopicSpec{Name: "t", Assignment: [][]int32{{0, 1, 2}},
		Configs: map[string]string{"min.insync.replicas": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	produce(t, c, "t", 1000, "v")
	got := readAll(t, c, "t", 1000)
	for i, v := range got[:1000] {
		if v != fmt.Sprintf("v-%d", i) {
			t.Fatalf("offset %d holds %q, want v-%d", i, v, i)
		}
	}
	st := waitISR(t, adm, "t", []int32{0, 1, 2}, 10*time.Second)
	if st.Leader != 0 || !slices.Equal(st.Replicas, []int32{0, 1, 2}) {
		t.Errorf("describe: %+v, want leader 0 replicas [0 1 2]", st)
	}
	if c.Version().HasELR() && (st.ELR == nil || st.LastKnownELR == nil) {
		t.Errorf("describe on %s with ELR on: ELR fields missing: %+v", c.Config().KafkaVersion, st)
	}
	leo := adm.ReplicaLogEndOffsets(ctx, "t", []int32{0}, []int32{0, 1, 2})
	for _, b := range []int32{0, 1, 2} {
		if leo[0][b] != 1000 {
			t.Errorf("broker %d log end offset %d, want 1000 (all %v)", b, leo[0][b], leo[0])
		}
	}
	// Pause broker 2: the ISR shrinks to [0 1] within replica.lag.time.max.ms
	// plus a few seconds.
	if err := c.Pause(ctx, 2); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	waitISR(t, adm, "t", []int32{0, 1}, 4*time.Second+8*time.Second)
	t.Logf("ISR shrank %s after pause", time.Since(paused).Round(100*time.Millisecond))
	if err := c.Resume(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waitISR(t, adm, "t", []int32{0, 1, 2}, 30*time.Second)
}

func TestClusterKillRestartKeepsData(t *testing.T) {
	c := startCluster(t, nil)
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx := context.Background()
	if err := adm.CreateTopic(ctx, admin.TopicSpec{Name: "k", Assignment: [][]int32{{0, 1, 2}}}); err != nil {
		t.Fatal(err)
	}
	produce(t, c, "k", 500, "a")
	waitISR(t, adm, "k", []int32{0, 1, 2}, 10*time.Second)
	if err := c.Kill(ctx, 2); err != nil {
		t.Fatal(err)
	}
	st, err := c.State(ctx, 2)
	if err != nil || st.Running {
		t.Fatalf("broker 2 still runs after kill -9: %+v %v", st, err)
	}
	checkFilesWhileDead(t, c, 2, "k-0")
	waitISR(t, adm, "k", []int32{0, 1}, 15*time.Second)
	produce(t, c, "k", 500, "b")
	if err := c.Start(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitBrokers(ctx, []int32{2}, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	waitISR(t, adm, "k", []int32{0, 1, 2}, 60*time.Second)
	// Broker 2 is back in the ISR, so it holds all 1,000 records. One
	// ListOffsets to it can still go unanswered right after it rejoined
	// (ReplicaLogEndOffsets leaves such a broker out): ask until it answers.
	var got int64 = -1
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if leo, ok := adm.ReplicaLogEndOffsets(ctx, "k", []int32{0}, []int32{2})[0][2]; ok {
			got = leo
			break
		}
	}
	if got != 1000 {
		t.Errorf("restarted broker 2 log end offset %d (-1: it never answered), want 1000", got)
	}
	logs, err := c.Logs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The restarted broker found its old log (recovery after an unclean
	// shutdown), rather than an empty disk.
	if !strings.Contains(string(logs), "unflushed") && !strings.Contains(string(logs), "Recover") {
		t.Errorf("broker 2 log shows no log recovery after kill -9 and restart")
	}
}

// TestClusterThreeControllers: a 3-controller quorum comes up, elects an
// active controller that the admin API names, and survives losing it.
func TestClusterThreeControllers(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := docker.Start(ctx, cluster.Config{KafkaVersion: testenv.KafkaVersion(), Controllers: 3})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	testenv.TearDown(t, c, docker.Labelled)
	if n := len(c.Controllers()); n != 3 {
		t.Fatalf("%d controllers, want 3", n)
	}
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	active, err := adm.ActiveController(ctx)
	if err != nil || active < cluster.ControllerIDBase {
		t.Fatalf("active controller %d: %v", active, err)
	}
	if err := c.Kill(ctx, active); err != nil {
		t.Fatal(err)
	}
	// The two survivors elect a new active controller; topics can still be made.
	deadline := time.Now().Add(30 * time.Second)
	for {
		next, err := adm.ActiveController(ctx)
		if err == nil && next != active && next >= cluster.ControllerIDBase {
			t.Logf("active controller %d killed; %d took over", active, next)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new active controller after killing %d (last %d, %v)", active, next, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err := adm.CreateTopic(ctx, admin.TopicSpec{Name: "q", Assignment: [][]int32{{0, 1, 2}}}); err != nil {
		t.Fatalf("create topic with 2 of 3 controllers: %v", err)
	}
}

// checkFilesWhileDead reads a killed broker's log dir through the cluster
// interface, as the power-loss fault does: the partition dir and its
// segment are there, meta.properties names the broker, and a path that
// leaves the log dir is refused.
func checkFilesWhileDead(t *testing.T, c cluster.Nodes, id int32, partDir string) {
	t.Helper()
	ctx := context.Background()
	files, err := c.Files(id)
	if err != nil {
		t.Fatal(err)
	}
	top, err := files.List(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(top, func(f cluster.FileInfo) bool { return f.Name == partDir && f.Dir }) {
		t.Errorf("log dir of node %d: no %s in %+v", id, partDir, top)
	}
	part, err := files.List(ctx, partDir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(part, func(f cluster.FileInfo) bool { return f.Name == "00000000000000000000.log" && f.Size > 0 }) {
		t.Errorf("%s of node %d: no non-empty first segment in %+v", partDir, id, part)
	}
	meta, err := files.ReadFile(ctx, "meta.properties")
	if err != nil || !strings.Contains(string(meta), fmt.Sprintf("node.id=%d", id)) {
		t.Errorf("meta.properties of node %d: %q %v", id, meta, err)
	}
	if _, err := files.ReadFile(ctx, "../server.properties"); err == nil {
		t.Error("a path outside the log dir was read")
	}
}
