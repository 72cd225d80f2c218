//go:build integration

package docker_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestStartFailsFastOnFormatError gives broker 1 a config value Kafka
// refuses, so its kafka-storage format fails and the container exits. The
// start must fail within seconds (not after the 150 s readiness limit),
// name broker 1 and quote Kafka's error, and leave nothing behind.
func TestStartFailsFastOnFormatError(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runID := cluster.NewRunID()
	begin := time.Now()
	c, err := docker.Start(ctx, cluster.Config{
		RunID:        runID,
		KafkaVersion: testenv.KafkaVersion(),
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

// TestStrictListConfigRefusal: a broker config line that Kafka 4.1 takes
// (a list with an empty entry) is refused from 4.2 (KIP-1161); kchaos's
// start error names the key, quotes Kafka and says why an older release
// took it. On 4.1.2 the same line starts (when that image is built).
func TestStrictListConfigRefusal(t *testing.T) {
	testenv.Docker(t)
	const key, value = "ssl.cipher.suites", "TLS_AES_128_GCM_SHA256,,TLS_AES_256_GCM_SHA384"
	for _, tc := range []struct {
		version string
		refused bool
	}{{cluster.DefaultKafkaVersion, true}, {"4.1.2", false}} {
		t.Run(tc.version, func(t *testing.T) {
			if !tc.refused && exec.Command("docker", "image", "inspect", "kchaos/kafka:"+tc.version).Run() != nil {
				t.Skipf("image kchaos/kafka:%s not built", tc.version)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			runID := cluster.NewRunID()
			c, err := docker.Start(ctx, cluster.Config{RunID: runID, KafkaVersion: tc.version, Brokers: 1,
				BrokerConfig: map[string]string{key: value}})
			if c != nil && err == nil {
				defer c.Teardown(context.Background())
			}
			if !tc.refused {
				if err != nil {
					t.Fatalf("Kafka %s refused %s=%s: %v", tc.version, key, value, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Kafka %s started with %s=%s; want KIP-1161's refusal", tc.version, key, value)
			}
			var nerr *cluster.NodeStartError
			if !errors.As(err, &nerr) {
				t.Fatalf("error is not a NodeStartError: %v", err)
			}
			for _, want := range []string{key, "must not be empty", "KIP-1161"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("start error lacks %q:\n%v", want, err)
				}
			}
			t.Logf("refused as: %v", err)
			ctrs, nets, lerr := docker.Labelled(ctx, runID)
			if lerr != nil || len(ctrs)+len(nets) != 0 {
				t.Errorf("after the refused start %d containers and %d networks remain (%v)", len(ctrs), len(nets), lerr)
			}
		})
	}
}
