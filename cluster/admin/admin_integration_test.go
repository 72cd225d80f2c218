//go:build integration

package admin_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// The admin requests against a real cluster (1 controller + 3 brokers):
// what the unit tests fake, answered by Kafka.
func TestAdminAgainstACluster(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := docker.Start(ctx, cluster.Config{KafkaVersion: testenv.KafkaVersion()})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	testenv.TearDown(t, c, docker.Labelled)
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()

	if live, err := adm.LiveBrokers(ctx); err != nil || !slices.Equal(live, []int32{0, 1, 2}) {
		t.Fatalf("live brokers %v, %v; want [0 1 2]", live, err)
	}
	if id, err := adm.ActiveController(ctx); err != nil || id != cluster.ControllerIDBase {
		t.Errorf("active controller %d, %v; want %d", id, err, cluster.ControllerIDBase)
	}
	const topic = "admin-it"
	if err := adm.CreateTopic(ctx, admin.TopicSpec{Name: topic, Assignment: [][]int32{{1, 2, 0}},
		Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
		t.Fatal(err)
	}

	cfgs, err := adm.TopicConfigs(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]admin.ConfigValue{
		"min.insync.replicas":            {Value: "2", Source: histories.ConfigSourceTopic},
		"unclean.leader.election.enable": {Value: "false", Source: histories.ConfigSourceDefault},
		"segment.bytes":                  {Value: "16777216", Source: histories.ConfigSourceBroker}, // kchaos's log.segment.bytes
	} {
		if got := cfgs[k]; got != want {
			t.Errorf("topic config %s: %+v, want %+v", k, got, want)
		}
	}

	const n = 50
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < n; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprint(i)), Partition: 0}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}

	parts, err := adm.Describe(ctx, topic)
	if err != nil || len(parts) != 1 {
		t.Fatalf("describe: %v, %v", parts, err)
	}
	p := parts[0]
	if p.Leader != 1 || !slices.Equal(p.Replicas, []int32{1, 2, 0}) || !slices.Equal(p.ISR, []int32{0, 1, 2}) {
		t.Errorf("describe %+v: want leader 1 (preferred), replicas [1 2 0] in order, ISR [0 1 2]", p)
	}
	if hw, err := adm.HighWatermark(ctx, p.Leader, topic, 0); err != nil || hw != n {
		t.Errorf("high watermark %d, %v; want %d (acks=all sends)", hw, err, n)
	}
	if _, err := adm.HighWatermark(ctx, 2, topic, 0); err == nil {
		t.Error("a follower answered the consumer's ListOffsets: want NOT_LEADER_OR_FOLLOWER")
	}

	// A killed broker leaves the live set once the controller fences it
	// (broker.session.timeout.ms 3 s), and comes back when started.
	if err := c.Kill(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waitLive(t, adm, []int32{0, 1}, 20*time.Second)
	if err := c.Start(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waitLive(t, adm, []int32{0, 1, 2}, 90*time.Second)
}

func waitLive(t *testing.T, adm *admin.Client, want []int32, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last []int32
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		live, err := adm.LiveBrokers(ctx)
		cancel()
		if err == nil {
			last = live
			if slices.Equal(live, want) {
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("live brokers %v after %s, want %v", last, limit, want)
}
