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

// TestFinalReadDescribedAtWithinItsOp: a read_committed final read that
// stops below the high watermark asks which transactions are open, and
// stamps when on the history's clock within its own op, where the checker
// looks for it (txn-hanging's age after the final heal). One t4 run's
// stamp fell after the op's completion (the time since a moment before the
// invoke, added to the invoke's time), and the checker fell back to the
// read's start.
func TestFinalReadDescribedAtWithinItsOp(t *testing.T) {
	logs := map[int32][]string{0: {"a", "b", "c"}}
	d := &fakeDriver{consumer: func() Consumer {
		return &logConsumer{logs: logs, start: map[int32]int64{0: 0}}
	}}
	v := &fakeView{
		parts: []admin.PartitionState{{Partition: 0, Leader: 1}},
		hw:    map[int32]int64{0: 5}, // records 3 and 4 held back by an open transaction
		open:  map[int32][]histories.OpenTxn{0: {{ProducerID: 7, FirstOffset: 3}}},
	}
	// The read_committed read must complete for the open transactions to
	// be asked; the read_uncommitted read after it cannot (the fake log
	// holds 3 of the 5 records below the high watermark) and runs to the
	// timeout. 600 ms let the first read time out too on a loaded machine
	// (2026-12-05, beside three compiles): 3 s leaves it room.
	w, rec, buf := newTestWorkload(t, Config{Partitions: 1, Isolation: histories.ReadCommitted,
		FinalReadTimeout: Duration(3 * time.Second)}, d)
	w.rec = slowInvokes{rec} // an invoke that waits for the recorder, as under load
	if _, err := w.FinalRead(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	var call int64 = -1
	found := false
	for _, e := range readBack(t, rec, buf) {
		if e.F != histories.FFinalRead {
			continue
		}
		if e.Type == histories.Invoke {
			call = e.Time
			continue
		}
		var got histories.ReadResult
		if err := e.Decode(&got); err != nil {
			t.Fatal(err)
		}
		for _, o := range got.OpenTxns["0"] {
			found = true
			if o.DescribedAt < call || o.DescribedAt > e.Time {
				t.Errorf("described_at %d outside its op [%d, %d]", o.DescribedAt, call, e.Time)
			}
		}
	}
	if !found {
		t.Fatal("no read recorded the open transaction")
	}
}

// slowInvokes is a recorder whose invokes wait 50 ms before they are
// stamped, as when the recorder's lock is contended.
type slowInvokes struct{ *histories.Recorder }

func (r slowInvokes) Invoke(process int, f string, value any) (histories.Event, error) {
	time.Sleep(50 * time.Millisecond)
	return r.Recorder.Invoke(process, f, value)
}
