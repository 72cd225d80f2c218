//go:build integration

package nemesistest

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
//	flock /tmp/kchaos-cluster.lock go test -tags integration -run TestX -v ./nemesis/ (or ./nemesis/disk/, ...)

// Harness is one test's cluster, admin client, env and history.
type Harness struct {
	T       *testing.T
	C       *docker.Cluster
	Adm     *admin.Client
	Env     *nemesis.Env
	History string // the history file Env's recorder writes
}

// Start starts the tests' cluster with brokerConfig, and its Harness.
func Start(t *testing.T, brokerConfig map[string]string) *Harness {
	t.Helper()
	return StartConfig(t, cluster.Config{BrokerConfig: brokerConfig})
}

// StartConfig is Start with more of the cluster's configuration (log
// dirs); version, racks and the log folder are the tests' own.
func StartConfig(t *testing.T, cfg cluster.Config) *Harness {
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
	t.Logf("cluster %s ready in %s", c.RunID(), Since(begin))
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	h := &Harness{T: t, C: c, Adm: adm, History: filepath.Join(t.TempDir(), "history.jsonl")}
	rec, err := histories.Create(h.History)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rec.Close() })
	h.Env = &nemesis.Env{Cluster: c, Admin: adm, Recorder: rec,
		Log: slog.New(slog.NewTextHandler(tWriter{t}, nil)), Seed: 1}
	return h
}

// Since is the time since t, rounded for a log line.
func Since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Replicated creates topic on brokers 0, 1 and 2, produces n records and
// waits until all three are in sync: where most tests here start.
func (h *Harness) Replicated(topic string, n int) {
	h.T.Helper()
	h.Topic(topic, []int32{0, 1, 2}, nil)
	h.Produce(n, "a", false)
	h.Until(ISR(0, 1, 2), 30*time.Second)
}

// Topic creates topic with the replica list and configs, and makes it the
// env's workload topic.
func (h *Harness) Topic(name string, replicas []int32, configs map[string]string) {
	h.T.Helper()
	err := h.Adm.CreateTopic(context.Background(), admin.TopicSpec{Name: name,
		Assignment: [][]int32{replicas}, Configs: configs})
	if err != nil {
		h.T.Fatal(err)
	}
	h.Env.Topic = name
}

// Produce sends n records to partition 0 with acks=all; batches=true sends
// them one by one so that each is its own record batch.
func (h *Harness) Produce(n int, prefix string, batches bool) {
	h.T.Helper()
	h.send(n, prefix, batches, kgo.RequiredAcks(kgo.AllISRAcks()))
}

// ProduceLeaderAck sends n records with acks=1: they do not wait for the
// followers, which is what makes a cut-off follower lag. A follower that
// has every record stays in the ISR however long it is silent (Kafka
// shrinks the ISR only for followers behind the leader's log end), so a
// partition fault shows in the ISR only once something is written.
func (h *Harness) ProduceLeaderAck(n int, prefix string) {
	h.T.Helper()
	h.send(n, prefix, false, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
}

// WriteInBackground keeps writing to partition 0 with acks=1 (a record
// every 100 ms, failures ignored) until ctx ends, as a workload would: it
// is what makes cut-off followers fall out of the ISR.
func (h *Harness) WriteInBackground(ctx context.Context) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.C.Bootstrap()...), kgo.DefaultProduceTopic(h.Env.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(), kgo.RecordDeliveryTimeout(5*time.Second))
	if err != nil {
		h.T.Fatal(err)
	}
	go func() {
		defer cl.Close()
		for i := 0; ctx.Err() == nil; i++ {
			cl.Produce(ctx, &kgo.Record{Value: fmt.Appendf(nil, "bg-%d", i), Partition: 0}, nil)
			time.Sleep(100 * time.Millisecond)
		}
	}()
}

func (h *Harness) send(n int, prefix string, batches bool, opts ...kgo.Opt) {
	h.T.Helper()
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(h.C.Bootstrap()...),
		kgo.DefaultProduceTopic(h.Env.Topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		h.T.Fatal(err)
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
			h.T.Fatalf("produce: %v", err)
		}
		return
	}
	for _, r := range recs {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			h.T.Fatalf("produce: %v", err)
		}
	}
}

// Until waits for a condition on partition 0 and returns how long it took.
func (h *Harness) Until(c nemesis.Condition, limit time.Duration) time.Duration {
	h.T.Helper()
	begin := time.Now()
	if err := nemesis.WaitFor(context.Background(), h.Env.State(), h.Env.Topic, c, limit); err != nil {
		h.T.Fatal(err)
	}
	return time.Since(begin).Round(100 * time.Millisecond)
}

// Inject builds the step's fault and injects it through Env, failing the
// test on an error.
func (h *Harness) Inject(st nemesis.Step) {
	h.T.Helper()
	f, err := nemesis.NewFault(st)
	if err != nil {
		h.T.Fatal(err)
	}
	if err := h.Env.Inject(context.Background(), f); err != nil {
		h.T.Fatal(err)
	}
}

// Heal runs heal kind (all, disk, ...) through Env.
func (h *Harness) Heal(kind string) {
	h.T.Helper()
	if err := h.Env.Heal(context.Background(), kind, 2*time.Minute); err != nil {
		h.T.Fatal(err)
	}
}

// NoRules checks that no kchaos iptables rule (a partition's or a client
// cut's, tagged with the comment kchaos: nemesis/network's RuleComment)
// is left on any node. It reads `iptables -S` itself: the harness may not
// import a room.
func (h *Harness) NoRules() {
	h.T.Helper()
	for _, id := range h.Env.AllNodes() {
		out, err := h.Env.Cluster.Exec(context.Background(), id, "iptables", "-w", "5", "-S")
		if err != nil {
			h.T.Errorf("node %d: list rules: %v", id, err)
		}
		var rules []string
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if i := slices.Index(f, "--comment"); len(f) > 0 && f[0] == "-A" && i >= 0 && i+1 < len(f) && strings.Trim(f[i+1], `"`) == "kchaos" {
				rules = append(rules, line)
			}
		}
		if len(rules) > 0 {
			h.T.Errorf("node %d: kchaos rules left after heal: %v", id, rules)
		}
	}
}

// Leo is broker's log end offset of partition 0, retried for a while: a
// broker that just started answers only once it has loaded its logs.
func (h *Harness) Leo(broker int32) int64 {
	h.T.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		m := h.Adm.ReplicaLogEndOffsets(context.Background(), h.Env.Topic, []int32{0}, []int32{broker})
		if o, ok := m[0][broker]; ok {
			return o
		}
		if time.Now().After(deadline) {
			h.T.Fatalf("broker %d: no log end offset for %s-0", broker, h.Env.Topic)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Running says whether node id runs, unpaused.
func (h *Harness) Running(id int32) bool {
	st, err := h.C.State(context.Background(), id)
	if err != nil {
		h.T.Fatal(err)
	}
	return st.Running && !st.Paused
}

// NemesisOps returns the nemesis ops of the history, checking that each
// invoke is followed by its completion.
func (h *Harness) NemesisOps() []histories.Event {
	h.T.Helper()
	if err := h.Env.Recorder.Flush(); err != nil {
		h.T.Fatal(err)
	}
	evs, _, err := histories.ReadFile(h.History)
	if err != nil {
		h.T.Fatal(err)
	}
	var out []histories.Event
	for _, e := range evs {
		if e.Process == histories.NemesisProcess {
			out = append(out, e)
		}
	}
	for i := 0; i+1 < len(out); i += 2 {
		if out[i].Type != histories.Invoke || out[i+1].Type == histories.Invoke || out[i].F != out[i+1].F {
			h.T.Errorf("nemesis ops %d,%d: %s %s then %s %s: want invoke then completion",
				i, i+1, out[i].Type, out[i].F, out[i+1].Type, out[i+1].F)
		}
	}
	return out
}

// Completion finds the last completion of f and decodes its value.
func Completion(ops []histories.Event, f string) (histories.Event, histories.NemesisValue, bool) {
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].F == f && ops[i].Type != histories.Invoke {
			var v histories.NemesisValue
			_ = ops[i].Decode(&v)
			return ops[i], v, true
		}
	}
	return histories.Event{}, histories.NemesisValue{}, false
}

// ISR is the condition "partition 0's ISR is ids".
func ISR(ids ...int32) nemesis.Condition { return nemesis.Condition{ISR: ids} }

// Must fails the test at once, with the message, unless ok.
func Must(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

// Equal says whether two id lists are the same, in order.
func Equal(a, b []int32) bool { return slices.Equal(a, b) }

// Recovery finds the line in which Kafka says it recovers an unflushed
// segment of partition (what it does after an unclean shutdown only): the
// proof, in a broker's own log, that a kill or a power loss was unclean.
func Recovery(log, partition string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Recovering unflushed segment") && strings.Contains(l, "partition="+partition+",") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
