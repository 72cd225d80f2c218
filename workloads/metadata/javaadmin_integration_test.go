//go:build integration

package metadata

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// TestJavaMetaAdmin runs the metadata workload's changes through the Java
// Admin client (workloads/java's JavaMetaAdmin, through NewMetaAdmin) on the shared cluster: each change of one
// topic's life answered as admin.NewOnce's would be (a create, the same
// create refused TOPIC_ALREADY_EXISTS: fail, more partitions, a config
// key, the delete), then the metadata workload itself for 8 s on it, two
// clients, every op ok or fail (no timeouts on a healthy cluster) and the
// brokers agreeing with what was acknowledged (the final read settles).
func TestJavaMetaAdmin(t *testing.T) {
	testenv.AllScenarios(t) // make test-scenarios: the metadata stories' driver seam
	c, adm := workloadstest.Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := workloads.Config{Driver: workloads.DriverJava, ClusterVersion: c.Config().KafkaVersion, Runner: c}
	cfg.Defaults()
	prepareDriver(ctx, t, cfg)
	ja, closeAdmin, err := workloads.NewMetaAdmin(cfg, c.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer closeAdmin()
	if _, franz := ja.(*admin.Client); franz {
		t.Fatal("driver java's metadata admin is franz-go's: workloads/java is not linked (drivers_test.go)")
	}
	topic := workloads.MetadataTopicPrefix + "java-once"
	step := func(name string, want histories.Type, f func(context.Context) error) error {
		sctx, scancel := context.WithTimeout(ctx, opTimeout)
		defer scancel()
		err := f(sctx)
		if got := admin.MetaOutcome(err); got != want {
			t.Errorf("%s: %s (%v), want %s", name, got, err, want)
		}
		return err
	}
	step("create", histories.OK, func(ctx context.Context) error { return ja.CreateTopicOnce(ctx, topic, 1, 3) })
	if err := step("create again", histories.Fail, func(ctx context.Context) error { return ja.CreateTopicOnce(ctx, topic, 1, 3) }); !workloads.IsTopicExists(err) {
		t.Errorf("create again: %v, want TOPIC_ALREADY_EXISTS", err)
	}
	step("partitions", histories.OK, func(ctx context.Context) error { return ja.CreatePartitionsOnce(ctx, topic, 2) })
	step("fewer partitions", histories.Fail, func(ctx context.Context) error { return ja.CreatePartitionsOnce(ctx, topic, 1) })
	step("config", histories.OK, func(ctx context.Context) error {
		return ja.SetTopicConfigOnce(ctx, topic, workloads.MetadataConfigKey, "3600001")
	})
	step("delete", histories.OK, func(ctx context.Context) error { return ja.DeleteTopicOnce(ctx, topic) })

	path, rec := workloadstest.NewHistory(t, t.TempDir())
	m := New(workloads.MetadataConfig{Clients: 2, Rate: 4}, ja, rec, 3, 11)
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	time.Sleep(8 * time.Second)
	m.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	t.Logf("metadata ops: %+v", st)
	if st.OK < 10 || st.Info > 0 {
		t.Errorf("metadata ops %+v: want at least 10 ok and no info on a healthy cluster", st)
	}
	if err := FinalRead(ctx, adm, rec, cluster.IDs(c.Brokers()), nil, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("read history: %v (torn %v)", err, torn)
	}
	reads := 0
	for _, e := range evs {
		if e.F == histories.FMetadataRead && e.Type == histories.OK {
			reads++
		}
	}
	if reads < 3 {
		t.Errorf("%d metadata reads, want one per broker at least", reads)
	}
}
