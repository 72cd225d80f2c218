//go:build integration

package harness_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestScenarioD1FollowerDiskFails: d1's outcome (docs/SCENARIOS.md), from
// the run's history: the disk-fail op took effect on broker 1 (Kafka
// reported the dir offline), the observer saw the ISR {0, 2} under leader
// 0 while it held and {0, 1, 2} at the end, acks=all sends were acked while
// the dir was failed, partition 0 never lost its leader, and nothing acked
// was lost.
func TestScenarioD1FollowerDiskFails(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "d1")
	r.wantValidNoLoss(t, "d1")
	if off := r.offlineNoLeader(); off != 0 {
		t.Errorf("d1: partition 0 without a leader for %.1f s, want never", off)
	}
	var failAt, healAt int64
	eachValue(t, r.events, nemesisOK, func(e histories.Event, v histories.NemesisValue) {
		switch {
		case e.F == histories.FDiskFail:
			failAt = e.Time
			p, _ := v.Details["1"].(map[string]any)
			if !slices.Equal(v.Nodes, []int32{1}) || !strings.HasPrefix(fmt.Sprint(p["kafka"]), "offline: ") {
				t.Errorf("d1: disk-fail op %s: want nodes [1] and broker 1 reporting the dir offline", e.Value)
			}
			t.Logf("d1: disk-fail: %s", e.Value)
		case e.F == histories.FHeal && v.Fault == histories.HealDisk:
			healAt = e.Time
			t.Logf("d1: heal disk: %s", e.Value)
		}
	})
	if failAt == 0 || healAt <= failAt {
		t.Fatalf("d1: disk-fail at %d, heal disk at %d", failAt, healAt)
	}
	sawShrunk, acked := false, 0
	var lastISR []int32
	for _, e := range r.events {
		switch {
		case e.F == histories.FObserve && e.Type == histories.OK:
			var v histories.ObserveValue
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if v.Partition != 0 {
				continue
			}
			slices.Sort(v.ISR)
			if e.Time > failAt && e.Time < healAt && v.Leader == 0 && slices.Equal(v.ISR, []int32{0, 2}) {
				sawShrunk = true
			}
			lastISR = v.ISR
		case e.F == histories.FSend && e.Type == histories.OK && e.Time > failAt && e.Time < healAt:
			acked++
		}
	}
	if !sawShrunk {
		t.Error("d1: the observer never saw ISR [0 2] under leader 0 while broker 1's dir was failed")
	}
	if acked == 0 {
		t.Error("d1: no send was acked while broker 1's dir was failed")
	}
	if !slices.Equal(lastISR, []int32{0, 1, 2}) {
		t.Errorf("d1: ISR at the end %v, want [0 1 2]", lastISR)
	}
	t.Logf("d1: %d sends acked while the dir was failed; ISR at the end %v", acked, lastISR)
}
