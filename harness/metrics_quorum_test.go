package harness

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
)

// TestQuorumMetrics: the new controller and how long the old one still
// answered as leader are measured from the quorum samples around the
// first leader-moving fault; a run without samples or a fault measures
// nothing.
func TestQuorumMetrics(t *testing.T) {
	q := func(s float64, leader, epoch int32) histories.Event {
		b, _ := json.Marshal(histories.QuorumValue{LeaderID: leader, LeaderEpoch: epoch})
		return histories.Event{Time: int64(s * 1e9), Process: histories.ObserverProcess, Type: histories.OK, F: histories.FQuorum, Value: b}
	}
	invoke := func(s float64) histories.Event {
		return histories.Event{Time: int64(s * 1e9), Process: histories.NemesisProcess, Type: histories.Invoke, F: histories.FPartition}
	}
	ok := func(s float64) histories.Event {
		b, _ := json.Marshal(histories.NemesisValue{Fault: histories.FPartition, Nodes: []int32{1000}})
		return histories.Event{Time: int64(s * 1e9), Process: histories.NemesisProcess, Type: histories.OK, F: histories.FPartition, Value: b}
	}
	fault := func(s float64) histories.Event { return ok(s) } // an ok without its invoke counts from the ok
	for _, tc := range []struct {
		name string
		evs  []histories.Event
		want string
	}{
		{"resigned", []histories.Event{q(1, 1000, 3), fault(2), q(2.5, 1000, 3), q(5, 1000, 3), q(5.5, 1001, 4), q(6, 1001, 4)},
			"after 1001 new 3.5 old 3"},
		{"old leader never seen again", []histories.Event{q(1, 1000, 3), fault(2), q(4, 1002, 4)}, "after 1002 new 2 old 0"},
		// Not deposed: nothing to resign from. Its claims after the fault
		// are its own (a cut of the active controller from the brokers
		// alone: 23 s of "claims" in a random schedule's q3 run), so how
		// fast it resigned is not measured.
		{"no new leader", []histories.Event{q(1, 1000, 3), fault(2), q(3, 1000, 3)}, "after - new - old -"},
		{"a newer epoch seen, the old leader claiming beside it", []histories.Event{q(1, 1000, 3), fault(2), q(3, 1000, 3), q(3, 1001, 4), q(14, 1000, 3)},
			"after 1001 new 1 old 12"},
		{"old leader re-elected is not the old epoch", []histories.Event{q(1, 1000, 3), fault(2), q(3, 1000, 5)}, "after - new - old 0"},
		{"no samples", []histories.Event{fault(2)}, "after - new - old -"},
		// Claims from every controller: the new leader's first claim and the
		// old one's last came between the fault's invoke (2) and its ok
		// (2.8, after the proof); measured from the invoke, with the old
		// leader the one before the invoke (a q1 run on 4.0.2 took the new
		// leader for the old and measured 41.8 s of "old" claims).
		{"claims between invoke and ok", []histories.Event{q(1, 1000, 3), invoke(2), q(2.3, 1000, 3), q(2.3, 1001, 4), ok(2.8), q(3, 1001, 4), q(9, 1001, 4)},
			"after 1001 new 0.3 old 0.3"},
		{"the newest epoch before the fault is the leader", []histories.Event{q(0.5, 1001, 4), q(0.5, 1000, 3), invoke(2), ok(2.5), q(3, 1000, 3), q(4, 1002, 5)},
			"after 1002 new 2 old 0"}, // 1000's stale claim of epoch 3 is no new leader
		{"no fault", []histories.Event{q(1, 1000, 3), q(3, 1001, 4)}, "after - new - old -"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := newRunScan()
			for _, e := range tc.evs {
				sc.add(e)
			}
			m := expect.Metrics{}
			sc.quorum.metrics(m)
			get := func(k string) string {
				if v, ok := m[k]; ok {
					return fmt.Sprint(v)
				}
				return "-"
			}
			got := fmt.Sprintf("after %s new %s old %s", get(expect.ControllerAfterFault), get(expect.NewControllerSeconds), get(expect.OldControllerClaimedSeconds))
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestVoterMetrics: the voter set's size at the end and at its smallest,
// how soon a removed controller voted again, and the reconfiguration ops
// that did not complete ok, from the samples and the ops.
func TestVoterMetrics(t *testing.T) {
	q := func(s float64, leader int32, voters ...int32) histories.Event {
		v := histories.QuorumValue{LeaderID: leader, LeaderEpoch: 2}
		for _, id := range voters {
			v.Voters = append(v.Voters, histories.QuorumReplica{ID: id})
		}
		b, _ := json.Marshal(v)
		return histories.Event{Time: int64(s * 1e9), Process: histories.ObserverProcess, Type: histories.OK, F: histories.FQuorum, Value: b}
	}
	op := func(s float64, f string, typ histories.Type, node int32) histories.Event {
		b, _ := json.Marshal(histories.NemesisValue{Fault: f, Nodes: []int32{node}, Details: map[string]any{"node": node}})
		return histories.Event{Time: int64(s * 1e9), Process: histories.NemesisProcess, Type: typ, F: f, Value: b}
	}
	rm, add := histories.FRemoveController, histories.FAddController
	for _, tc := range []struct {
		name string
		evs  []histories.Event
		want string
	}{
		{"removed and added back", []histories.Event{q(1, 1000, 1000, 1001, 1002), op(2, rm, histories.OK, 1002),
			q(2.5, 1000, 1000, 1001), op(5, add, histories.OK, 1002), q(6, 1000, 1000, 1001, 1002)},
			"final 3 min 2 back 4 failed 0"},
		{"auto-join brings it back at once", []histories.Event{q(1, 1000, 1000, 1001, 1002), op(2, rm, histories.OK, 1002),
			q(2.25, 1000, 1000, 1001, 1002)}, "final 3 min 3 back 0.25 failed 0"},
		{"a sample without a leader counts for nothing", []histories.Event{q(1, 1000, 1000, 1001, 1002), op(2, rm, histories.OK, 1002),
			q(2.5, -1), q(3, 1001, 1000, 1001)}, "final 2 min 2 back - failed 0"},
		{"a refused add", []histories.Event{q(1, 1000, 1000, 1001), op(2, add, histories.Info, 1003), q(3, 1000, 1000, 1001)},
			"final 2 min 2 back - failed 1"},
		{"no samples", []histories.Event{op(2, rm, histories.OK, 1002)}, "final - min - back - failed 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := newRunScan()
			for _, e := range tc.evs {
				sc.add(e)
			}
			m := expect.Metrics{}
			sc.voters.metrics(m)
			get := func(k string) string {
				if v, ok := m[k]; ok {
					return fmt.Sprint(v)
				}
				return "-"
			}
			got := fmt.Sprintf("final %s min %s back %s failed %s", get(expect.FinalVoters), get(expect.MinVoters),
				get(expect.RemovedVoterBackSeconds), get(expect.ReconfigFailed))
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
