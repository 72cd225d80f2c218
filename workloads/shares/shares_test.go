package shares

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
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
			if got, _ := outcome(tc.errs); got != tc.want {
				t.Fatalf("outcome %s, want %s", got, tc.want)
			}
		})
	}
}

// TestShareDraw: the ack mix is seeded (the same seed and member draw
// the same statuses) and follows its weights.
func TestShareDraw(t *testing.T) {
	mix := workloads.ShareAckMix{Accept: 8, Release: 1, Reject: 1}
	draw := func(seed uint64) map[string]int {
		s := &slot{rng: rand.New(rand.NewPCG(seed, 0))}
		n := map[string]int{}
		for range 10000 {
			n[s.draw(mix)]++
		}
		return n
	}
	a, b := draw(1), draw(1)
	if a[histories.AckAccept] != b[histories.AckAccept] || a[histories.AckRelease] != b[histories.AckRelease] {
		t.Fatalf("seed 1 drew %v, then %v", a, b)
	}
	if a[histories.AckAccept] < 7500 || a[histories.AckAccept] > 8500 || a[histories.AckRelease] < 700 || a[histories.AckReject] < 700 {
		t.Fatalf("weights 8:1:1 drew %v", a)
	}
	if only := (&slot{rng: rand.New(rand.NewPCG(3, 0))}).draw(workloads.ShareAckMix{Reject: 1}); only != histories.AckReject {
		t.Fatalf("reject-only mix drew %v", only)
	}
}

// TestShareTallyMissing: the drain waits for the records below the log end
// that no member saw final, except those below the group's start offset
// (final as far as Kafka is concerned: an ack it applied whose answer was
// lost never brings them back).
func TestShareTallyMissing(t *testing.T) {
	fin := &tally{}
	for _, off := range []int64{0, 1, 3} {
		fin.add(0, off)
	}
	fin.add(1, 5)
	starts := map[int32]int64{0: 0, 1: 5}
	ends := map[int32]int64{0: 5, 1: 7}
	for _, tc := range []struct {
		name string
		spso map[int32]int64
		want int64
	}{
		{"no start offsets", nil, 3},                        // 0: 2, 4; 1: 6
		{"start offset passed 2", map[int32]int64{0: 3}, 2}, // 0: 4; 1: 6
		{"start offsets at the ends", map[int32]int64{0: 5, 1: 7}, 0},
		{"start offset below the log start", map[int32]int64{0: -1, 1: 0}, 3},
	} {
		if got := fin.missing(starts, tc.spso, ends); got != tc.want {
			t.Errorf("%s: %d missing, want %d", tc.name, got, tc.want)
		}
	}
}

// TestShareTallyWords: offsets on either side of a bitset word's edge, and
// far apart, are each counted once.
func TestShareTallyWords(t *testing.T) {
	fin := &tally{}
	for _, off := range []int64{62, 63, 64, 127, 128, 1 << 40} {
		fin.add(2, off)
	}
	fin.add(2, 64) // twice: still one record
	for _, tc := range []struct {
		start, end int64
		want       int64
	}{
		{62, 65, 0},
		{61, 66, 2},   // 61, 65
		{60, 130, 65}, // 70 offsets, 5 of them final
		{1 << 40, 1<<40 + 2, 1},
	} {
		if got := fin.missing(map[int32]int64{2: tc.start}, nil, map[int32]int64{2: tc.end}); got != tc.want {
			t.Errorf("[%d, %d): %d missing, want %d", tc.start, tc.end, got, tc.want)
		}
	}
}
