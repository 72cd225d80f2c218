package share

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// TestLeaderMoved: a record handed out again at the same count is a
// double acquire only while the share-partition's leader stayed: a move
// the observer saw between the two deliveries (or within observerLag
// after the second) means the new leader reloaded the persisted state,
// which holds no acquisition (w2, recommended campaign, 4.4.0).
func TestLeaderMoved(t *testing.T) {
	lag := int64(observerLag)
	for _, tc := range []struct {
		name string
		// samples of partition 0: at (relative to the second delivery's
		// completion when late, else to the first poll's invoke), leader, epoch
		samples func(first, second int64) []model.Sample
		want    map[string]int
		cause   string
	}{
		{"no observer", func(_, _ int64) []model.Sample { return nil },
			map[string]int{DoubleAcquire: 1}, ""},
		{"leader stayed", func(first, second int64) []model.Sample {
			return []model.Sample{{At: first - 5, Leader: 2, Epoch: 2}, {At: second - 5, Leader: 2, Epoch: 2, ISR: []int32{2}}}
		}, map[string]int{DoubleAcquire: 1}, ""},
		{"leader moved between", func(first, second int64) []model.Sample {
			return []model.Sample{{At: first - 5, Leader: 2, Epoch: 2}, {At: second - 5, Leader: 0, Epoch: 3}}
		}, map[string]int{Redelivery: 1}, causeLeaderMoved},
		{"same leader, new epoch", func(first, second int64) []model.Sample {
			return []model.Sample{{At: first - 5, Leader: 2, Epoch: 2}, {At: second - 5, Leader: 2, Epoch: 3}}
		}, map[string]int{Redelivery: 1}, causeLeaderMoved},
		{"seen within the observer's lag", func(first, second int64) []model.Sample {
			return []model.Sample{{At: first - 5, Leader: 2, Epoch: 2}, {At: second + lag/2, Leader: 0, Epoch: 3}}
		}, map[string]int{Redelivery: 1}, causeLeaderMoved},
		{"seen after the observer's lag", func(first, second int64) []model.Sample {
			return []model.Sample{{At: first - 5, Leader: 2, Epoch: 2}, {At: second + 2*lag, Leader: 0, Epoch: 3}}
		}, map[string]int{DoubleAcquire: 1}, ""},
		{"no sample before the first, a move inside", func(first, second int64) []model.Sample {
			return []model.Sample{{At: first + 5, Leader: 2, Epoch: 2}, {At: second - 5, Leader: 0, Epoch: 3}}
		}, map[string]int{Redelivery: 1}, causeLeaderMoved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			h.members(1)
			first := h.t + 10 // the first poll's invoke
			h.poll(1, 1, 0)
			h.ack(1, 1, 0, acc, unk, histories.OK) // answered by the old leader: no evidence
			h.poll(1, 1, 0)
			second := h.t
			b := h.builder(t)
			b.observe(0, tc.samples(first, second))
			b.finish()
			r := b.check(nil)
			if got := counts(r); !maps.Equal(got, tc.want) {
				t.Fatalf("anomalies %v, want %v", got, tc.want)
			}
			if tc.cause == "" {
				return
			}
			e := r.ShareRedelivery[0]
			if e.Cause != tc.cause || len(e.Faults) != 0 || !strings.Contains(e.LeaderMoved, "epoch 3") {
				t.Fatalf("redelivery %+v: want cause %s naming the move to epoch 3", e, tc.cause)
			}
		})
	}
	if observerLag < 250*time.Millisecond {
		t.Fatalf("observerLag %v is shorter than the observer's sampling interval", observerLag)
	}
}

// TestHeldFault: a lasting fault holds from its op until the op that ends
// it, so two deliveries after a cut's op completed and before its heal
// are across a possible leader change even when the observer, asking the
// cut-off broker, saw none (w2, recommended campaign, run 30: 7 false
// double acquires).
func TestHeldFault(t *testing.T) {
	ok := histories.OK
	cut := model.NemOp{F: histories.FPartition, Typ: ok, Call: 1, Ret: 2, V: histories.NemesisValue{Nodes: []int32{0}}}
	pause := model.NemOp{F: histories.FPause, Typ: ok, Call: 1, Ret: 2, V: histories.NemesisValue{Nodes: []int32{1}}}
	healCut := model.NemOp{F: histories.FHeal, Typ: ok, Call: 500, Ret: 501, V: histories.NemesisValue{Fault: histories.FPartition}}
	healAll := model.NemOp{F: histories.FHeal, Typ: ok, Call: 600, Ret: 601, V: histories.NemesisValue{Fault: histories.HealAll}}
	restart := model.NemOp{F: histories.FRestart, Typ: ok, Call: 1, Ret: 2, V: histories.NemesisValue{Nodes: []int32{2}}}
	for _, tc := range []struct {
		name string
		nem  []model.NemOp
		want int64
	}{
		{"a cut until its heal", []model.NemOp{cut, healCut, healAll}, 501},
		{"a pause is not ended by a partition heal", []model.NemOp{pause, healCut, healAll}, 601},
		{"never healed", []model.NemOp{cut}, -1},
		{"an instant fault: its op", []model.NemOp{restart, healAll}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := heldUntil(tc.nem, 0); got != tc.want {
				t.Fatalf("heldUntil = %d, want %d", got, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name string
		held int64
		want map[string]int
	}{
		{"healed before the first delivery", 5, map[string]int{DoubleAcquire: 1}},
		{"held across both", -1, map[string]int{Redelivery: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hb{}
			h.members(1)
			h.t += 20 // the cut's op: before the first poll
			h.poll(1, 1, 0)
			h.ack(1, 1, 0, acc, unk, histories.OK)
			h.poll(1, 1, 0)
			b := h.builder(t)
			b.nemesis(histories.FPartition, []int32{0}, 1, 2)
			b.faults[0].held = tc.held
			b.finish()
			if got := counts(b.check(nil)); !maps.Equal(got, tc.want) {
				t.Fatalf("anomalies %v, want %v", got, tc.want)
			}
		})
	}
}
