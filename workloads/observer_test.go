package workloads

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

func TestObserverRecordsChangesAndHeartbeat(t *testing.T) {
	v := &fakeView{
		parts: []admin.PartitionState{
			{Partition: 0, Leader: 0, LeaderEpoch: 1, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}},
			{Partition: 1, Leader: 1, LeaderEpoch: 1, Replicas: []int32{1, 0, 2}, ISR: []int32{0, 1, 2}},
		},
		hw:  map[int32]int64{0: 10, 1: 20},
		leo: map[int32]map[int32]int64{0: {0: 10, 1: 10, 2: 10}, 1: {0: 20, 1: 20, 2: 20}},
	}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	o := NewObserver(v, rec, "t", ObserverOptions{Heartbeat: 200 * time.Millisecond})
	ctx := context.Background()

	o.Sample(ctx)             // first sample: both partitions
	o.Sample(ctx)             // nothing changed: nothing
	v.set(func(v *fakeView) { // broker 2 paused: it leaves partition 0's ISR and stops answering
		v.parts[0].ISR = []int32{0, 1}
		v.parts[0].ELR = []int32{2}
		v.hw[0] = 12
		v.leo[0] = map[int32]int64{0: 12, 1: 12}
	})
	o.Sample(ctx) // partition 0 only
	// The broker it describes from (0, partition 0's leader) stops
	// answering, and so do the next two brokers asked: nothing, counted.
	v.set(func(v *fakeView) { v.failNext, v.down = 2, map[int32]bool{0: true} })
	o.Sample(ctx)
	time.Sleep(250 * time.Millisecond)
	o.Sample(ctx) // heartbeat: both again, unchanged; now from broker 1
	o.Sample(ctx) // nothing new
	evs := readBack(t, rec, &buf)
	if fmt.Sprint(v.from) != "[0 0 0 1]" {
		t.Errorf("described from brokers %v, want [0 0 0 1]: stay with one broker while it answers", v.from)
	}

	var got []string
	for _, e := range evs {
		if e.Process != histories.ObserverProcess || e.Type != histories.OK || e.F != histories.FObserve {
			t.Fatalf("observer event %+v: want process -2, ok, observe", e)
		}
		var ov histories.ObserveValue
		if err := e.Decode(&ov); err != nil {
			t.Fatal(err)
		}
		got = append(got, string(e.Value))
	}
	want := []string{
		`{"topic":"t","partition":0,"leader":0,"leader_epoch":1,"isr":[0,1,2],"elr":[],"last_known_elr":[],"high_watermark":10,"log_end_offsets":{"0":10,"1":10,"2":10}}`,
		`{"topic":"t","partition":1,"leader":1,"leader_epoch":1,"isr":[0,1,2],"elr":[],"last_known_elr":[],"high_watermark":20,"log_end_offsets":{"0":20,"1":20,"2":20}}`,
		`{"topic":"t","partition":0,"leader":0,"leader_epoch":1,"isr":[0,1],"elr":[2],"last_known_elr":[],"high_watermark":12,"log_end_offsets":{"0":12,"1":12}}`,
		`{"topic":"t","partition":0,"leader":0,"leader_epoch":1,"isr":[0,1],"elr":[2],"last_known_elr":[],"high_watermark":12,"log_end_offsets":{"0":12,"1":12}}`,
		`{"topic":"t","partition":1,"leader":1,"leader_epoch":1,"isr":[0,1,2],"elr":[],"last_known_elr":[],"high_watermark":20,"log_end_offsets":{"0":20,"1":20,"2":20}}`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d observe events, want %d:\n%s", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if s, r, f := o.Counts(); s != 6 || r != 5 || f != 1 {
		t.Errorf("counts: %d samples, %d recorded, %d failed; want 6, 5, 1", s, r, f)
	}
}

func TestObserverStartStop(t *testing.T) {
	v := &fakeView{parts: []admin.PartitionState{{Partition: 0, Leader: -1, Replicas: []int32{0}}}}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	o := NewObserver(v, rec, "t", ObserverOptions{Interval: 10 * time.Millisecond, Heartbeat: 30 * time.Millisecond})
	o.Start(context.Background())
	o.Start(context.Background()) // no second loop
	time.Sleep(150 * time.Millisecond)
	o.Stop()
	o.Stop()
	samples, recorded, _ := o.Counts()
	evs := readBack(t, rec, &buf)
	if samples < 5 || recorded < 2 || int64(len(evs)) != recorded {
		t.Errorf("%d samples, %d recorded, %d events: want several samples, a heartbeat or more", samples, recorded, len(evs))
	}
	var ov histories.ObserveValue
	_ = evs[0].Decode(&ov)
	if ov.Leader != -1 || ov.HighWatermark != -1 {
		t.Errorf("offline partition: %+v, want leader -1 and high watermark -1 (unknown)", ov)
	}
}

// The observer records each partition's log start offset, and on a tiered
// topic its local log start and highest remote offset; a change of the
// log start alone is a new event.
func TestObserverRecordsLogStartAndTier(t *testing.T) {
	for _, tiered := range []bool{false, true} {
		v := &fakeView{
			parts: []admin.PartitionState{{Partition: 0, Leader: 0, LeaderEpoch: 1, Replicas: []int32{0}, ISR: []int32{0}}},
			hw:    map[int32]int64{0: 50},
			at: map[int32]map[int64]int64{0: {admin.EarliestTimestamp: 0,
				admin.EarliestLocalTimestamp: 30, admin.LatestTieredTimestamp: 29}},
		}
		var buf bytes.Buffer
		rec := histories.NewRecorder(&buf)
		o := NewObserver(v, rec, "t", ObserverOptions{Heartbeat: time.Hour, Tiered: tiered})
		o.Sample(context.Background())
		v.set(func(v *fakeView) { v.at[0][admin.EarliestTimestamp] = 10 })
		o.Sample(context.Background())
		var got []string
		for _, e := range readBack(t, rec, &buf) {
			var ov histories.ObserveValue
			if err := e.Decode(&ov); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("start=%v local=%v remote=%v", deref(ov.LogStartOffset), deref(ov.LocalLogStartOffset), deref(ov.HighestRemoteOffset)))
		}
		want := "[start=0 local=none remote=none start=10 local=none remote=none]"
		if tiered {
			want = "[start=0 local=30 remote=29 start=10 local=30 remote=29]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("tiered=%v: recorded %v, want %s", tiered, got, want)
		}
	}
}

func deref(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
