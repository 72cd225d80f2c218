//go:build integration

package workloadstest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// One 1-controller, 3-broker cluster serves every integration test and
// benchmark of a package (each uses its own topic): starting one costs
// ~25 s on the 2-core machines. Main tears it down.
var shared struct {
	once sync.Once
	c    *docker.Cluster
	err  error
}

// Main runs a package's tests and benchmarks (its TestMain calls it), then
// tears the shared cluster down if one started.
func Main(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if err := shared.c.Teardown(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "teardown of cluster %s: %v\n", shared.c.RunID(), err)
			code = 1
		}
		cancel()
	}
	os.Exit(code)
}

// TB is what testing.T and testing.B share that the helpers use.
type TB interface {
	Helper()
	Skip(...any)
	Skipf(string, ...any)
	Fatal(...any)
	Fatalf(string, ...any)
	Logf(string, ...any)
	Cleanup(func())
}

// Cluster starts the shared cluster on first use. It fails the test when
// Docker or the Kafka image is missing.
func Cluster(t TB) *docker.Cluster {
	t.Helper()
	testenv.Docker(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		begin := time.Now()
		logs, _ := os.MkdirTemp("", "kchaos-workloads-logs-")
		shared.c, shared.err = docker.Start(ctx, cluster.Config{
			KafkaVersion: testenv.KafkaVersion(),
			Racks:        cluster.Racks{"a": {0, 1}, "b": {2}},
			LogDir:       logs, // the brokers' logs, copied at teardown
		})
		if shared.err != nil {
			shared.err = fmt.Errorf("%w (broker logs in %s)", shared.err, logs)
		}
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "cluster %s ready in %s\n", shared.c.RunID(), time.Since(begin).Round(100*time.Millisecond))
		}
	})
	if shared.err != nil {
		t.Fatalf("start cluster: %v", shared.err)
	}
	return shared.c
}

// Admin is Cluster with an admin client, closed when the test ends.
func Admin(t TB) (*docker.Cluster, *admin.Client) {
	t.Helper()
	c := Cluster(t)
	adm, err := c.Admin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	return c, adm
}

// NewHistory creates history.jsonl in dir and returns its path and the
// recorder writing it.
func NewHistory(t TB, dir string) (string, *histories.Recorder) {
	t.Helper()
	path := filepath.Join(dir, "history.jsonl")
	rec, err := histories.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, rec
}

// CreateTopic creates topic with the assignment and min.insync.replicas 2.
func CreateTopic(t TB, adm *admin.Client, topic string, assignment [][]int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := adm.CreateTopic(ctx, admin.TopicSpec{Name: topic, Assignment: assignment,
		Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// WaitISR waits until every partition of topic has exactly isr.
func WaitISR(ctx context.Context, adm *admin.Client, topic string, isr []int32, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last []admin.PartitionState
	for {
		parts, err := adm.Describe(ctx, topic)
		if err == nil {
			last = parts
			ok := len(parts) > 0
			for _, p := range parts {
				ok = ok && slices.Equal(p.ISR, isr)
			}
			if ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ISR of %s not %v within %s: %+v", topic, isr, limit, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
