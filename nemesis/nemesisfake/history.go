package nemesisfake

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// The tests' readings of a recorded history and the quorum they fake,
// shared by the seam's tests and the network and clients rooms'.

// Record gives fn a recorder over a history in memory and returns the
// events recorded: nemesis ops, each an invoke then its completion
// (anything else fails t). The seam's tests and nemesistest.Recorded
// record an Env's ops through it.
func Record(t testing.TB, fn func(rec *histories.Recorder)) []histories.Event {
	t.Helper()
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	fn(rec)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(evs); i += 2 {
		if evs[i].Process != histories.NemesisProcess || evs[i].Type != histories.Invoke ||
			i+1 >= len(evs) || evs[i+1].Type == histories.Invoke || evs[i+1].F != evs[i].F {
			t.Fatalf("event %d: want nemesis invoke then its completion: %+v", i, evs[i:])
		}
	}
	return evs
}

// Summary renders the completions as "f:type nodes" lines.
func Summary(evs []histories.Event) string {
	return strings.Join(Completions(evs, func(e histories.Event, v histories.NemesisValue) string {
		s := fmt.Sprintf("%s:%s", e.F, e.Type)
		if len(v.Nodes) > 0 {
			s += fmt.Sprint(v.Nodes)
		}
		return s
	}), " ")
}

// Completions renders each completion in evs (invokes are left out) with
// its nemesis value.
func Completions(evs []histories.Event, line func(e histories.Event, v histories.NemesisValue) string) []string {
	var out []string
	for _, e := range evs {
		if e.Type == histories.Invoke {
			continue
		}
		var v histories.NemesisValue
		_ = e.Decode(&v)
		out = append(out, line(e, v))
	}
	return out
}

// ProofOf returns the details.proof of the last completion of f.
func ProofOf(t *testing.T, evs []histories.Event, f string) (histories.Event, map[string]any) {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].F == f && evs[i].Type != histories.Invoke {
			var v histories.NemesisValue
			if err := evs[i].Decode(&v); err != nil {
				t.Fatal(err)
			}
			p, _ := v.Details["proof"].(map[string]any)
			return evs[i], p
		}
	}
	t.Fatalf("no completion of %s", f)
	return histories.Event{}, nil
}

// Quorum is a KRaft quorum led by leader (epoch 4) with voters and
// observers, as DescribeQuorum answers it.
func Quorum(leader int32, voters, observers []int32) *histories.QuorumValue {
	q := &histories.QuorumValue{LeaderID: leader, LeaderEpoch: 4}
	for _, v := range voters {
		q.Voters = append(q.Voters, histories.QuorumReplica{ID: v})
	}
	for _, o := range observers {
		q.Observers = append(q.Observers, histories.QuorumReplica{ID: o})
	}
	return q
}

// WantErr fails t unless err contains want, or, with want "", unless err
// is nil: the check of every table of valid and refused inputs.
func WantErr(t testing.TB, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
