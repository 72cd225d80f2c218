//go:build integration

package disk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/disk"
	nt "github.com/kchaos/kchaos/nemesis/nemesistest"
)

// TestLoseUnflushedWriteback: the writeback model keeps what was written
// before the window and drops the last window, where the recovery-point
// model drops everything unflushed.
//
// Two single-replica topics with LogAppendTime, wb on broker 0 and rp on
// broker 1 (one replica, so that no follower refills the log after the
// restart: the log end offset measured afterwards is what the disk
// kept). Nothing is ever flushed (Kafka's default), so both recovery
// points stay at 0. Each gets 20 "old" records, one batch each, then,
// 6 s later, 20 "new" ones; at once both brokers lose power: broker 0 by
// the writeback model with a 4 s window (dirty_expire 3s,
// writeback_interval 1s), broker 1 by the recovery-point model.
//
// Expected: wb keeps old-0..old-18 (offsets 0-18). old-19 was written
// long enough ago, but the model dates a batch by the next batch's stamp,
// and the next is new-0, inside the window: the one batch before a pause
// is the model's price for never guessing. Every new record is dropped.
// rp keeps nothing.
func TestLoseUnflushedWriteback(t *testing.T) {
	h := nt.Start(t, map[string]string{
		"log.flush.offset.checkpoint.interval.ms": "1000",
		"log.initial.task.delay.ms":               "1000",
	})
	ctx := context.Background()
	lat := map[string]string{"message.timestamp.type": "LogAppendTime"}
	h.Topic("rp", []int32{1}, lat)
	h.Topic("wb", []int32{0}, lat)
	for _, topic := range []string{"wb", "rp"} {
		h.Env.Topic = topic
		h.Produce(20, "old", true)
	}
	time.Sleep(6 * time.Second)
	for _, topic := range []string{"wb", "rp"} {
		h.Env.Topic = topic
		h.Produce(20, "new", true)
	}
	wbBefore, rpBefore := leoOf(h, "wb", 0), leoOf(h, "rp", 1)
	nt.Must(t, wbBefore == 40 && rpBefore == 40, "before the cut: log ends %d and %d, want 40", wbBefore, rpBefore)

	begin := time.Now()
	h.Env.Topic = "wb"
	h.Inject(nemesis.Step{Fault: histories.FLoseUnflushed, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}, Params: &disk.LoseUnflushedParams{Start: true, Model: disk.ModelWriteback, DirtyExpire: nemesis.Duration(3 * time.Second), WritebackInterval: nemesis.Duration(time.Second)}})
	h.Env.Topic = "rp"
	h.Inject(nemesis.Step{Fault: histories.FLoseUnflushed, Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{1}}, Params: &disk.LoseUnflushedParams{Start: true}})
	t.Logf("two power cuts (kill -9, cut, start) took %s", nt.Since(begin))
	wbAfter, rpAfter := leoOf(h, "wb", 0), leoOf(h, "rp", 1)
	t.Logf("log end of wb-0 (writeback, 4 s window): %d -> %d; of rp-0 (recovery point): %d -> %d", wbBefore, wbAfter, rpBefore, rpAfter)
	nt.Must(t, wbAfter == 19, "writeback model kept %d records of wb-0, want 19 (old-0..old-18)", wbAfter)
	nt.Must(t, rpAfter == 0, "recovery-point model kept %d records of rp-0, want 0", rpAfter)

	// The records kept are the old ones, read back from the restarted
	// broker; and the history says which model each cut used.
	h.Env.Topic = "wb"
	vals := readAll(t, h, "wb", 19)
	nt.Must(t, len(vals) == 19 && vals[0] == "old-0" && vals[18] == "old-18", "wb-0 holds %v, want old-0..old-18", vals)
	ops := h.NemesisOps()
	var models []string
	for _, e := range ops {
		if e.F != histories.FLoseUnflushed || e.Type != "ok" {
			continue
		}
		var v struct {
			Details map[string]json.RawMessage `json:"details"`
		}
		_ = json.Unmarshal(e.Value, &v)
		models = append(models, string(v.Details["model"]))
		t.Logf("recorded: %s", e.Value)
	}
	nt.Must(t, len(models) == 2 && models[0] == `"writeback"` && models[1] == `"recovery-point"`, "models recorded %v", models)
	_, wb, _ := completionAt(ops, histories.FLoseUnflushed, 0)
	nt.Must(t, bytes.Contains(wb, []byte(`"partition":"wb-0","recovery_point":0,"log_end_before":40,"log_end_after":19`)) &&
		bytes.Contains(wb, []byte(`"writeback_point":19`)), "recorded cut of wb-0: %s", wb)
	r := nemesis.Runner{Env: h.Env}
	if err := r.FinalHeal(ctx); err != nil {
		t.Fatal(err)
	}
}

// leoOf is broker's log end offset of topic's partition 0.
func leoOf(h *nt.Harness, topic string, broker int32) int64 {
	h.T.Helper()
	was := h.Env.Topic
	defer func() { h.Env.Topic = was }()
	h.Env.Topic = topic
	return h.Leo(broker)
}

// completionAt is the i-th completion of f and its raw value.
func completionAt(ops []histories.Event, f string, i int) (histories.Event, []byte, bool) {
	n := 0
	for _, e := range ops {
		if e.F == f && e.Type != "invoke" {
			if n == i {
				return e, e.Value, true
			}
			n++
		}
	}
	return histories.Event{}, nil, false
}

// readAll reads topic's partition 0 from its start until n records came
// (or 30 s passed) and returns their values.
func readAll(t *testing.T, h *nt.Harness, topic string, n int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.C.Bootstrap()...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []string
	for len(out) < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, string(r.Value)) })
	}
	return out
}
