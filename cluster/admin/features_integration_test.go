//go:build integration

package admin_test

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestSetFeatureLive: a cluster formatted with ELR off reports
// eligible.leader.replicas.version 0 (or none); raising it live makes every
// broker report 1, which is how an in-place upgrade turns ELR on.
func TestSetFeatureLive(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	v := testenv.KafkaVersion()
	if v == "" {
		v = cluster.DefaultKafkaVersion
	}
	if pv, _ := cluster.ParseVersion(v); !pv.HasELR() {
		t.Skipf("Kafka %s has no ELR feature", v)
	}
	off := false
	c, err := docker.Start(ctx, cluster.Config{KafkaVersion: v, ELR: &off})
	if err != nil {
		t.Fatal(err)
	}
	testenv.TearDown(t, c, docker.Labelled)
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	before, err := adm.FinalizedFeatures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before[admin.FeatureELR] != 0 || before[admin.FeatureMetadataVersion] == 0 {
		t.Fatalf("before: %v; want ELR 0 and a metadata.version", before)
	}
	supported, err := adm.SupportedFeatures(ctx)
	if err != nil || supported[admin.FeatureELR] < 1 {
		t.Fatalf("supported %v, %v", supported, err)
	}
	if err := adm.SetFeature(ctx, admin.FeatureELR, 1, false); err != nil {
		t.Fatal(err)
	}
	// Every broker learns the new level from the metadata log.
	deadline := time.Now().Add(30 * time.Second)
	for _, b := range c.Brokers() {
		one, err := admin.New([]string{b.Addr()})
		if err != nil {
			t.Fatal(err)
		}
		for {
			got, err := one.FinalizedFeatures(ctx)
			if err == nil && got[admin.FeatureELR] == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("broker %d still reports %v (%v)", b.ID, got, err)
			}
			time.Sleep(250 * time.Millisecond)
		}
		one.Close()
	}
	t.Logf("features before %v, supported %v", before, supported)
}
