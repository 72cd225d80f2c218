package explore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
)

// TestBisectWait: the shortest value that reproduces, found by a binary
// search bounded to its probes, the cheapest value first. A value
// reproduces from a threshold up (ok is v >= threshold); the result is
// never one that was refused, and lies within the interval the probes
// left.
func TestBisectWait(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		lo, hi, floor, limit int
		threshold            int
		want                 int
		probed               []int
	}{
		{"not needed: dropped in one probe", 0, 80, 10, 3, 0, 0, []int{0}},
		{"needed at half", 0, 80, 10, 3, 40, 40, []int{0, 40, 20}},
		{"needed at 30: within a quarter", 0, 80, 10, 3, 30, 40, []int{0, 40, 20}},
		{"needed whole: two halvings refused", 0, 80, 10, 3, 80, 80, []int{0, 40, 60}},
		{"more probes, finer", 0, 80, 10, 5, 30, 30, []int{0, 40, 20, 30, 25}},
		{"short: a half below the floor is lifted to it", 0, 15, 10, 3, 12, 12, []int{0, 10, 12}},
		{"shorter than the floor: drop or keep", 0, 8, 10, 3, 8, 8, []int{0}},
		{"one probe: only the cheapest", 0, 80, 10, 1, 40, 80, []int{0}},
		{"nothing to search", 10, 10, 0, 3, 0, 10, nil},
		{"workload: from its minimum", 5, 60, 0, 3, 10, 18, []int{5, 32, 18}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var probed []int
			got, err := bisect(tc.lo, tc.hi, tc.floor, tc.limit, func(v int) (bool, error) {
				probed = append(probed, v)
				return v >= tc.threshold, nil
			})
			if err != nil || got != tc.want || !slices.Equal(probed, tc.probed) {
				t.Errorf("bisect = %d, %v after probes %v; want %d after %v", got, err, probed, tc.want, tc.probed)
			}
			if got < tc.threshold {
				t.Errorf("bisect = %d, below the threshold %d: a value that does not reproduce", got, tc.threshold)
			}
		})
	}
	// An error (a spent budget, a cancel) ends the search at the least
	// value accepted so far.
	boom := errors.New("budget")
	got, err := bisect(0, 80, 10, 3, func(v int) (bool, error) {
		if v == 20 {
			return false, boom
		}
		return v >= 40, nil
	})
	if err != boom || got != 40 {
		t.Errorf("bisect with an error on its third probe = %d, %v; want 40, %v", got, err, boom)
	}
}

// TestWaitOrder: the waits phase searches the longest wait first (ties
// in schedule order), so that the biggest cut shortens every later run.
func TestWaitOrder(t *testing.T) {
	w := func(s float64) nemesis.Step {
		return nemesis.Step{Wait: nemesis.Duration(time.Duration(s * float64(time.Second)))}
	}
	kill := nemesis.Step{Fault: "kill"}
	for _, tc := range []struct {
		name  string
		steps []nemesis.Step
		want  []int
	}{
		{"none", []nemesis.Step{kill, {Heal: "kill"}}, nil},
		{"longest first", []nemesis.Step{w(2), kill, w(10), {Heal: "kill"}, w(25.5)}, []int{4, 2, 0}},
		{"ties in order", []nemesis.Step{w(5), kill, w(5), {Heal: "kill"}, w(1)}, []int{0, 2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := waitOrder(tc.steps); !slices.Equal(got, tc.want) {
				t.Errorf("waitOrder = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestShrinkWaitsLead: with a class that shows whatever the timing (the
// acks=1 kill of 2026-12-05 on a kept cluster), every wait goes in one
// candidate each, the longest first, except the one before the first
// fault, which stops at LeadWait (the workload must have acked on a
// fresh cluster before the fault); the workload goes to MinWorkload.
func TestShrinkWaitsLead(t *testing.T) {
	w := func(s float64) nemesis.Step {
		return nemesis.Step{Wait: nemesis.Duration(time.Duration(s * float64(time.Second)))}
	}
	kill := nemesis.Step{Fault: "kill", Target: &nemesis.Target{Role: nemesis.RoleNodes, Nodes: []int32{0}}}
	base, err := scenario.Load("s2", []string{"workload.duration=20s"})
	if err != nil {
		t.Fatal(err)
	}
	o := &orderOracle{}
	sh := &shrinker{o: o, opts: shrinkOptions{Class: "lost-write", Tries: 1, MinWait: defaultMinWait, Now: time.Now}, begin: time.Now(), res: &shrunk{}}
	got, err := sh.waits(context.Background(), withSteps(base, []nemesis.Step{w(20.6), kill, w(10), {Heal: "kill"}, w(3)}))
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, st := range got.Nemesis.Steps {
		words = append(words, stepWords(st))
	}
	if want := []string{"wait 3s", "kill on node(s) [0]", "heal kill"}; !slices.Equal(words, want) || got.Workload.Duration.Std() != minWorkload {
		t.Errorf("waits cut to %v, workload %s; want %v, %s", words, got.Workload.Duration, want, minWorkload)
	}
	want := []string{
		"kept: wait of step 1 20.6s -> 3s (reproduced on try 1)",
		"kept: without the wait of step 3 (10s) (reproduced on try 1)",
		"kept: without the wait of step 5 (3s) (reproduced on try 1)",
		"kept: workload.duration 20s -> 5s (reproduced on try 1)",
	}
	if !slices.Equal(sh.res.Trail, want) || len(o.tried) != len(want) {
		t.Errorf("trail %q after %d runs, want %q", sh.res.Trail, len(o.tried), want)
	}
}
