package workloads

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// quorumFake is a view whose quorum answers are scripted, one per sample.
type quorumFake struct {
	*fakeView
	answers []quorumAnswer
	next    int
}

type quorumAnswer struct {
	q   histories.QuorumValue
	err error
}

func (f *quorumFake) Quorum(context.Context) (histories.QuorumValue, error) {
	a := f.answers[min(f.next, len(f.answers)-1)]
	f.next++
	return a.q, a.err
}

// TestObserverSamplesQuorum: a quorum event is recorded when the quorum's
// state changed, not when only the fetch timestamps moved, again after a
// heartbeat, and never for a failed DescribeQuorum; partition samples go
// on beside it.
func TestObserverSamplesQuorum(t *testing.T) {
	q := func(leader, epoch int32, hw, fetch int64) histories.QuorumValue {
		return histories.QuorumValue{LeaderID: leader, LeaderEpoch: epoch, HighWatermark: hw,
			Voters: []histories.QuorumReplica{{ID: 1000, LogEndOffset: hw, LastFetchMS: fetch},
				{ID: 1001, LogEndOffset: hw, LastFetchMS: fetch}},
			Observers: []histories.QuorumReplica{{ID: 0, LogEndOffset: hw, LastFetchMS: fetch}}}
	}
	v := &quorumFake{fakeView: &fakeView{}, answers: []quorumAnswer{
		{q: q(1000, 3, 50, 1)},
		{q: q(1000, 3, 50, 2)}, // timestamps only: nothing
		{err: errors.New("timed out")},
		{q: q(1001, 4, 52, 3)}, // new leader and epoch
		{q: q(1001, 4, 52, 4)}, // after the heartbeat: again
	}}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	o := NewObserver(v, rec, "t", ObserverOptions{Heartbeat: 150 * time.Millisecond})
	for i := range 5 {
		if i == 4 {
			time.Sleep(200 * time.Millisecond)
		}
		o.sampleQuorum(context.Background())
	}
	var got []histories.QuorumValue
	for _, e := range readBack(t, rec, &buf) {
		if e.F != histories.FQuorum || e.Process != histories.ObserverProcess || e.Type != histories.OK {
			t.Fatalf("event %+v: want process -2, ok, quorum", e)
		}
		var qv histories.QuorumValue
		if err := e.Decode(&qv); err != nil {
			t.Fatal(err)
		}
		got = append(got, qv)
	}
	want := []histories.QuorumValue{q(1000, 3, 50, 1), q(1001, 4, 52, 3), q(1001, 4, 52, 4)}
	if len(got) != len(want) {
		t.Fatalf("%d quorum events %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if !got[i].SameState(want[i]) || got[i].Voters[0].LastFetchMS != want[i].Voters[0].LastFetchMS {
			t.Errorf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, r, f := o.Counts(); r != 3 || f != 1 {
		t.Errorf("recorded %d, failed %d; want 3, 1", r, f)
	}
}

// claimsFake scripts the controllers' answers, one slice per sample.
type claimsFake struct {
	answers [][]histories.QuorumValue
	next    int
}

func (f *claimsFake) Claims(context.Context) ([]histories.QuorumValue, error) {
	a := f.answers[min(f.next, len(f.answers)-1)]
	f.next++
	if len(a) == 0 {
		return nil, errors.New("no controller answered as leader")
	}
	return a, nil
}

// TestObserverRecordsEachControllersClaim: with Controllers set, every
// controller's claim is recorded with its From, deduplicated per
// controller (so an old leader that still claims beside the new one shows
// in the history side by side), and the view is not asked.
func TestObserverRecordsEachControllersClaim(t *testing.T) {
	claim := func(from, epoch int32, hw int64) histories.QuorumValue {
		return histories.QuorumValue{From: from, LeaderID: from, LeaderEpoch: epoch, HighWatermark: hw,
			Voters: []histories.QuorumReplica{{ID: 1000, LogEndOffset: hw}, {ID: 1001, LogEndOffset: hw}}}
	}
	c := &claimsFake{answers: [][]histories.QuorumValue{
		{claim(1000, 3, 50)},
		{claim(1000, 3, 50), claim(1001, 4, 52)}, // 1000 unchanged: only 1001's
		{},                                       // nobody claims: nothing, a failure
		{claim(1000, 3, 50), claim(1001, 4, 53)}, // 1001 moved on: only 1001's
	}}
	v := &quorumFake{fakeView: &fakeView{}, answers: []quorumAnswer{{err: errors.New("the view must not be asked")}}}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	o := NewObserver(v, rec, "t", ObserverOptions{Heartbeat: time.Hour, Controllers: c})
	for range 4 {
		o.sampleQuorum(context.Background())
	}
	var got []histories.QuorumValue
	for _, e := range readBack(t, rec, &buf) {
		var qv histories.QuorumValue
		if err := e.Decode(&qv); err != nil {
			t.Fatal(err)
		}
		got = append(got, qv)
	}
	want := []histories.QuorumValue{claim(1000, 3, 50), claim(1001, 4, 52), claim(1001, 4, 53)}
	if len(got) != len(want) {
		t.Fatalf("%d quorum events %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if !got[i].SameState(want[i]) || got[i].From != want[i].From {
			t.Errorf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if v.next != 0 {
		t.Errorf("the view was asked %d times; want 0", v.next)
	}
	if _, r, f := o.Counts(); r != 3 || f != 1 {
		t.Errorf("recorded %d, failed %d; want 3, 1", r, f)
	}
}
