//go:build integration

package franz

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// TestFranzProducerCountsWrites: the write counter behind workloads.MaybeWritten sees
// each Produce request kgo writes, on a real broker: one per send of a
// one-op-in-flight producer that nothing disturbs. A counter that never
// moved would leave every send's error definite, as before the s13
// aborted-read (errMaybeWritten).
func TestFranzProducerCountsWrites(t *testing.T) {
	c, adm := workloadstest.Admin(t)
	topic := "wl-writes"
	workloadstest.CreateTopic(t, adm, topic, [][]int32{{0, 1, 2}})
	p, err := franzDriver{}.NewProducer(workloads.Config{Topic: topic, Acks: workloads.AcksAll, RequestTimeout: workloads.Duration(5 * time.Second)}, c.Bootstrap(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fp := p.(*franzProducer)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 5 {
		before := fp.writes.n.Load()
		if _, err := p.Send(ctx, workloads.Message{Partition: 0, Value: fmt.Sprintf("w-%d", i)}); err != nil {
			t.Fatal(err)
		}
		if got := fp.writes.n.Load() - before; got != 1 {
			t.Fatalf("send %d: %d Produce writes counted, want 1", i, got)
		}
	}
}
