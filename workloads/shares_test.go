package workloads

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
)

// TestShareOutcome: a record's ack outcome from its partition's results
// in one flush: ok only when every result applied, fail only when the
// broker refused them all for the record state, else unknown.
func TestShareOutcome(t *testing.T) {
	for _, tc := range []struct {
		name string
		errs []error
		want string
	}{
		{"no result", nil, histories.ShareOutcomeInfo},
		{"applied", []error{nil}, histories.ShareOutcomeOK},
		{"applied twice", []error{nil, nil}, histories.ShareOutcomeOK},
		{"refused", []error{kerr.InvalidRecordState}, histories.ShareOutcomeFail},
		{"refused and applied", []error{kerr.InvalidRecordState, nil}, histories.ShareOutcomeInfo},
		{"leader moved", []error{kerr.NotLeaderForPartition}, histories.ShareOutcomeInfo},
		{"timeout", []error{errors.New("context deadline exceeded")}, histories.ShareOutcomeInfo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := shareOutcome(tc.errs); got != tc.want {
				t.Fatalf("outcome %s, want %s", got, tc.want)
			}
		})
	}
}

// TestShareDraw: the ack mix is seeded (the same seed and member draw
// the same statuses) and follows its weights.
func TestShareDraw(t *testing.T) {
	mix := ShareAckMix{Accept: 8, Release: 1, Reject: 1}
	draw := func(seed uint64) map[kgo.AckStatus]int {
		s := &shareSlot{rng: rand.New(rand.NewPCG(seed, 0))}
		n := map[kgo.AckStatus]int{}
		for range 10000 {
			n[s.draw(mix)]++
		}
		return n
	}
	a, b := draw(1), draw(1)
	if a[kgo.AckAccept] != b[kgo.AckAccept] || a[kgo.AckRelease] != b[kgo.AckRelease] {
		t.Fatalf("seed 1 drew %v, then %v", a, b)
	}
	if a[kgo.AckAccept] < 7500 || a[kgo.AckAccept] > 8500 || a[kgo.AckRelease] < 700 || a[kgo.AckReject] < 700 {
		t.Fatalf("weights 8:1:1 drew %v", a)
	}
	if only := (&shareSlot{rng: rand.New(rand.NewPCG(3, 0))}).draw(ShareAckMix{Reject: 1}); only != kgo.AckReject {
		t.Fatalf("reject-only mix drew %v", only)
	}
}
