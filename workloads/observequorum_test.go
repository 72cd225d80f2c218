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
