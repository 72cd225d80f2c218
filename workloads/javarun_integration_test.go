//go:build integration

package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestJavaIntegration runs the produce/consume workload through Apache
// Kafka's Java client (driver java, the cluster's own kafka-clients
// version) on the shared 3-broker cluster, pausing broker 2 (a follower
// of both partitions) from ~8 s to ~18 s as TestIntegration does, and
// checks the recorded history as TestIntegration does (checkHistory):
// every ok send in the final read at its offset with its value, polls
// consistent with it. Two settings: acks=all with retries off (definite
// errors stay fail), and an idempotent, pipelined producer with retries
// and read_committed consumers.
//
// It needs java, and javac and mvn for the first build of the driver
// (os.UserCacheDir()/kchaos/java/<version>/), beside Docker:
//
//	flock /tmp/kchaos-cluster.lock go test -tags integration -count=1 -p 1 -run TestJavaIntegration -v ./workloads/
func TestJavaIntegration(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"acks-all", Config{Producers: 3, Acks: AcksAll, Consumers: 2}},
		{"idempotent-pipelined-read-committed", Config{Producers: 2, Acks: AcksAll, Idempotent: true, Retries: 3,
			MaxInFlight: 4, Consumers: 2, Isolation: histories.ReadCommitted}},
	} {
		t.Run(c.name, func(t *testing.T) { javaIntegration(t, c.name, c.cfg) })
	}
}

func javaIntegration(t *testing.T, name string, cfg Config) {
	c, adm := sharedAdmin(t)
	topic := "wl-java-" + name
	createTopic(t, adm, topic, [][]int32{{0, 1, 2}, {1, 0, 2}})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a first build resolves jars
	defer cancel()

	path, rec := newHistory(t, t.TempDir())
	obs := NewObserver(adm, rec, topic, ObserverOptions{})
	obs.Start(ctx)
	cfg.Driver, cfg.Topic, cfg.Partitions = DriverJava, topic, 2
	cfg.ClusterVersion = c.Config().KafkaVersion // as the harness passes it
	cfg.Runner = c                               // the JVM in a container beside the brokers, as the harness runs it
	cfg.RequestTimeout = Duration(3 * time.Second)
	cfg.Duration, cfg.FinalReadTimeout = Duration(30*time.Second), Duration(60*time.Second)
	// Build the driver (and start the JVM) before the clock starts: the
	// first build resolves kafka-clients through Maven.
	prepareDriver(ctx, t, cfg)
	w, err := New(cfg, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}

	faultDone := pauseFollowerMidRun(ctx, t, c)
	logProgress(ctx, t, w, false)
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := <-faultDone; err != nil {
		t.Fatalf("pause/unpause broker 2: %v", err)
	}
	t.Logf("run: %+v", st)
	if err := waitISR(ctx, adm, topic, []int32{0, 1, 2}, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	fr, err := w.FinalRead(ctx, adm)
	if err != nil {
		t.Fatalf("final read: %v", err)
	}
	obs.Stop()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if !fr.Complete() {
		t.Errorf("final read incomplete: %+v", fr)
	}
	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("read history: %v (torn %v)", err, torn)
	}
	checkHistory(t, evs, topic, 2)
	if st.Acked < 200 {
		t.Errorf("only %d acked sends in 30 s", st.Acked)
	}
	if st.Polls == 0 || st.PolledRecords == 0 {
		t.Errorf("consumers polled %d times, %d records", st.Polls, st.PolledRecords)
	}
	if n := st.Errors[CauseUnknown]; n > 0 {
		t.Errorf("%d errors the Java mapping does not know (see the sends' detail): %v", n, st.Errors)
	}
}
