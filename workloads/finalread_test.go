package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

func TestFinalReadPerPartition(t *testing.T) {
	logs := map[int32][]string{0: {"a", "b", "c", "uncommitted"}, 1: {"x"}, 2: {}}
	d := &fakeDriver{consumer: func() Consumer {
		return &logConsumer{logs: logs, start: map[int32]int64{0: 0, 1: 0, 2: 0}}
	}}
	v := &fakeView{
		parts: []admin.PartitionState{
			{Partition: 0, Leader: 1},  // has a leader; high watermark 3 of 4 records
			{Partition: 1, Leader: -1}, // never gets one
			{Partition: 2, Leader: 0},  // empty
		},
		hw: map[int32]int64{0: 3, 2: 0},
	}
	w, rec, buf := newTestWorkload(t, Config{Partitions: 3, FinalReadTimeout: Duration(600 * time.Millisecond)}, d)
	res, err := w.FinalRead(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete() || !res.Partitions[0].Complete || res.Partitions[1].Complete || !res.Partitions[2].Complete {
		t.Errorf("result %+v: want 0 and 2 complete, 1 not", res)
	}
	evs := readBack(t, rec, buf)
	byProc := map[int][]histories.Event{}
	for _, e := range evs {
		if e.F != histories.FFinalRead {
			t.Fatalf("unexpected event %+v", e)
		}
		byProc[e.Process] = append(byProc[e.Process], e)
	}
	if len(byProc) != 3 {
		t.Fatalf("%d processes, want one per partition", len(byProc))
	}
	for _, ops := range byProc {
		if len(ops) != 2 || ops[0].Type != histories.Invoke {
			t.Fatalf("ops %+v: want invoke then completion", ops)
		}
		var req histories.ReadRequest
		_ = ops[0].Decode(&req)
		if len(req.Partitions) != 1 || req.From == nil || *req.From != 0 {
			t.Fatalf("invoke %s: want one partition, from 0", ops[0].Value)
		}
		var got histories.ReadResult
		_ = ops[1].Decode(&got)
		switch p := req.Partitions[0]; p {
		case 0:
			if ops[1].Type != histories.OK || len(got.Records) != 3 || got.EndOffsets["0"] != 3 || got.Records[2].Value != "c" {
				t.Errorf("partition 0: %s %s", ops[1].Type, ops[1].Value)
			}
		case 1:
			if ops[1].Type != histories.Info || ops[1].Error != CauseTimeout || got.EndOffsets != nil {
				t.Errorf("partition 1: %s %q %s", ops[1].Type, ops[1].Error, ops[1].Value)
			}
		case 2:
			if ops[1].Type != histories.OK || len(got.Records) != 0 || got.EndOffsets["2"] != 0 {
				t.Errorf("partition 2: %s %s", ops[1].Type, ops[1].Value)
			}
		}
	}
}
