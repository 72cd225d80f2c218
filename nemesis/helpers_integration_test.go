//go:build integration

package nemesis_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
	"github.com/kchaos/kchaos/nemesis"
)

// Integration tests start a real cluster: 1 controller and 3 brokers on
// racks a: [0 1] and b: [2]. Run them one at a time, under the machine's
// Docker lock:
//
//	flock /tmp/kchaos-cluster.lock go test -tags integration -run TestX -v ./nemesis/

// harness is one test's cluster, admin client, env and history.
type harness struct {
	t       *testing.T
	c       *docker.Cluster
	adm     *admin.Client
	env     *nemesis.Env
	history string
}

func start(t *testing.T, brokerConfig map[string]string) *harness {
	t.Helper()
	return startConfig(t, cluster.Config{BrokerConfig: brokerConfig})
}

// startConfig is start with more of the cluster's configuration (log
// dirs); version, racks and the log folder are the tests' own.
func startConfig(t *testing.T, cfg cluster.Config) *harness {
	t.Helper()
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	begin := time.Now()
	cfg.KafkaVersion = testenv.KafkaVersion()
	cfg.Racks = cluster.Racks{"a": {0, 1}, "b": {2}}
	cfg.LogDir = filepath.Join(t.TempDir(), "logs")
	c, err := docker.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	testenv.TearDown(t, c, docker.Labelled)
	t.Logf("cluster %s ready in %s", c.RunID(), since(begin))
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	h := &harness{t: t, c: c, adm: adm, history: filepath.Join(t.TempDir(), "history.jsonl")}
	rec, err := histories.Create(h.history)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rec.Close() })
	h.env = &nemesis.Env{Cluster: c, Admin: adm, Recorder: rec,
		Log: slog.New(slog.NewTextHandler(tWriter{t}, nil)), Seed: 1}
	return h
}

func since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// replicated creates topic on brokers 0, 1 and 2, produces n records and
// waits until all three are in sync: where most tests here start.
func (h *harness) replicated(topic string, n int) {
	h.t.Helper()
	h.topic(topic, []int32{0, 1, 2}, nil)
	h.produce(n, "a", false)
	h.until(isr(0, 1, 2), 30*time.Second)
}

// topic creates topic with the replica list and configs, and makes it the
// env's workload topic.
func (h *harness) topic(name string, replicas []int32, configs map[string]string) {
	h.t.Helper()
	err := h.adm.CreateTopic(context.Background(), admin.TopicSpec{Name: name,
		Assignment: [][]int32{replicas}, Configs: configs})
	if err != nil {
		h.t.Fatal(err)
	}
	h.env.Topic = name
}

// produce sends n records to partition 0 with acks=all; batches=true sends
// them one by one so that each is its own record batch.
func (h *harness) produce(n int, prefix string, batches bool) {
	h.t.Helper()
	h.send(n, prefix, batches, kgo.RequiredAcks(kgo.AllISRAcks()))
}

// produceLeaderAck sends n records with acks=1: they do not wait for the
// followers, which is what makes a cut-off follower lag. A follower that
// has every record stays in the ISR however long it is silent (Kafka
// shrinks the ISR only for followers behind the leader's log end), so a
// partition fault shows in the ISR only once something is written.
func (h *harness) produceLeaderAck(n int, prefix string) {
	h.t.Helper()
	h.send(n, prefix, false, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
}

// writeInBackground keeps writing to partition 0 with acks=1 (a record
// every 100 ms, failures ignored) until ctx ends, as a workload would: it
// is what makes cut-off followers fall out of the ISR.
func (h *harness) writeInBackground(ctx context.Context) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.c.Bootstrap()...), kgo.DefaultProduceTopic(h.env.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(), kgo.RecordDeliveryTimeout(5*time.Second))
	if err != nil {
		h.t.Fatal(err)
	}
	go func() {
		defer cl.Close()
		for i := 0; ctx.Err() == nil; i++ {
			cl.Produce(ctx, &kgo.Record{Value: fmt.Appendf(nil, "bg-%d", i), Partition: 0}, nil)
			time.Sleep(100 * time.Millisecond)
		}
	}()
}

func (h *harness) send(n int, prefix string, batches bool, opts ...kgo.Opt) {
	h.t.Helper()
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(h.c.Bootstrap()...),
		kgo.DefaultProduceTopic(h.env.Topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		h.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Value: fmt.Appendf(nil, "%s-%d", prefix, i), Partition: 0})
	}
	if !batches {
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			h.t.Fatalf("produce: %v", err)
		}
		return
	}
	for _, r := range recs {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			h.t.Fatalf("produce: %v", err)
		}
	}
}

// until waits for a condition on partition 0 and returns how long it took.
func (h *harness) until(c nemesis.Condition, limit time.Duration) time.Duration {
	h.t.Helper()
	begin := time.Now()
	if err := nemesis.WaitFor(context.Background(), h.env.State(), h.env.Topic, c, limit); err != nil {
		h.t.Fatal(err)
	}
	return time.Since(begin).Round(100 * time.Millisecond)
}

func (h *harness) inject(st nemesis.Step) {
	h.t.Helper()
	f, err := nemesis.NewFault(st)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.env.Inject(context.Background(), f); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) heal(kind string) {
	h.t.Helper()
	if err := h.env.Heal(context.Background(), kind, 2*time.Minute); err != nil {
		h.t.Fatal(err)
	}
}

// noRules checks that no kchaos iptables rule is left on any node.
func (h *harness) noRules() {
	h.t.Helper()
	for _, id := range h.env.AllNodes() {
		rules, err := h.env.ListRules(context.Background(), id)
		if err != nil {
			h.t.Errorf("node %d: list rules: %v", id, err)
		}
		if len(rules) > 0 {
			h.t.Errorf("node %d: kchaos rules left after heal: %v", id, rules)
		}
	}
}

// leo is broker's log end offset of partition 0, retried for a while: a
// broker that just started answers only once it has loaded its logs.
func (h *harness) leo(broker int32) int64 {
	h.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		m := h.adm.ReplicaLogEndOffsets(context.Background(), h.env.Topic, []int32{0}, []int32{broker})
		if o, ok := m[0][broker]; ok {
			return o
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("broker %d: no log end offset for %s-0", broker, h.env.Topic)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (h *harness) running(id int32) bool {
	st, err := h.c.State(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return st.Running && !st.Paused
}

// nemesisOps returns the nemesis ops of the history, checking that each
// invoke is followed by its completion.
func (h *harness) nemesisOps() []histories.Event {
	h.t.Helper()
	if err := h.env.Recorder.Flush(); err != nil {
		h.t.Fatal(err)
	}
	evs, _, err := histories.ReadFile(h.history)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []histories.Event
	for _, e := range evs {
		if e.Process == histories.NemesisProcess {
			out = append(out, e)
		}
	}
	for i := 0; i+1 < len(out); i += 2 {
		if out[i].Type != histories.Invoke || out[i+1].Type == histories.Invoke || out[i].F != out[i+1].F {
			h.t.Errorf("nemesis ops %d,%d: %s %s then %s %s: want invoke then completion",
				i, i+1, out[i].Type, out[i].F, out[i+1].Type, out[i+1].F)
		}
	}
	return out
}

// completion finds the last completion of f and decodes its value.
func completion(ops []histories.Event, f string) (histories.Event, histories.NemesisValue, bool) {
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].F == f && ops[i].Type != histories.Invoke {
			var v histories.NemesisValue
			_ = ops[i].Decode(&v)
			return ops[i], v, true
		}
	}
	return histories.Event{}, histories.NemesisValue{}, false
}

func isr(ids ...int32) nemesis.Condition { return nemesis.Condition{ISR: ids} }

func must(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

func equal(a, b []int32) bool { return slices.Equal(a, b) }
