package docker_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
)

// TestStartFailsFastOnFormatError gives broker 1 a config value Kafka
// refuses, so its kafka-storage format fails and the container exits. The
// start must fail within seconds (not after the 150 s readiness limit),
// name broker 1 and quote Kafka's error, and leave nothing behind.
func TestStartFailsFastOnFormatError(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs Docker and the Kafka image")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runID := cluster.NewRunID()
	begin := time.Now()
	c, err := docker.Start(ctx, cluster.Config{
		RunID:        runID,
		KafkaVersion: os.Getenv("KCHAOS_KAFKA_VERSION"),
		PerBroker:    map[int32]map[string]string{1: {"num.network.threads": "abc"}},
	})
	took := time.Since(begin)
	if err == nil {
		_ = c.Teardown(ctx)
		t.Fatal("start succeeded with an invalid broker config")
	}
	t.Logf("start failed after %s: %v", took.Round(100*time.Millisecond), err)
	var nerr *cluster.NodeStartError
	if !errors.As(err, &nerr) {
		t.Fatalf("error is not a NodeStartError: %v", err)
	}
	if nerr.Node.ID != 1 || nerr.Node.Role != cluster.RoleBroker {
		t.Errorf("blamed %s %d, want broker 1", nerr.Node.Role, nerr.Node.ID)
	}
	if !strings.Contains(err.Error(), "num.network.threads") || !strings.Contains(err.Error(), "abc") {
		t.Errorf("error does not quote Kafka's complaint about num.network.threads=abc:\n%v", err)
	}
	if took > 45*time.Second {
		t.Errorf("start took %s to fail; want it within seconds of the node's exit", took)
	}
	ctrs, nets, lerr := docker.Labelled(ctx, runID)
	if lerr != nil || len(ctrs)+len(nets) != 0 {
		t.Errorf("after the failed start %d containers and %d networks remain (%v)", len(ctrs), len(nets), lerr)
	}
}
