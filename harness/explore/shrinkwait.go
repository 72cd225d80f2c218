package explore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/duration"
	"github.com/kchaos/kchaos/nemesis"
)

// maxProbes bounds each binary search of the waits phase (one wait, or
// the workload's duration): the cheapest value first, then two halvings
// of the interval left, so a wait ends within a quarter of its length of
// the shortest that reproduces. Each probe is a candidate (up to K
// tries), and a probe that fails costs all K: a bound keeps a shrink of a
// 45 s story within minutes (issue 40: 26 runs when each round halved).
const maxProbes = 3

// leadWait is the shortest the waits before a schedule's first fault are
// cut to (never dropped): a fault in a run's first seconds races the
// workload's first acks, which a kept cluster (warm brokers) gives within
// a tenth of a second and a fresh one, on a loaded machine, more than a
// second later. Measured (docs/measured/explore.md, 2026-12-05): a kill
// at 0 s reproduced on a kept cluster and 0 of 3 times on fresh ones,
// with nothing acked before it; so a candidate accepted on a kept
// cluster must leave the workload time to ack on a fresh one, where
// `kchaos run` replays the repro.
const leadWait = 3 * time.Second

// bisect is the least value in [lo, hi] that ok accepts, found with at
// most probes calls of ok, hi being known to be accepted (the candidate
// before). It tries lo first: a wait the anomaly does not need goes in
// one probe. Then it halves the interval between the largest value
// refused and the least accepted; a value between 0 and floor is
// lifted to floor (a wait is dropped or at least MinWait long). It
// assumes that a longer value reproduces at least as often, which is
// what a wait for a fault to take effect is; when that is false, it only
// returns a larger value than needed, never one ok refused.
func bisect(lo, hi, floor, probes int, ok func(int) (bool, error)) (int, error) {
	if probes <= 0 || lo >= hi {
		return hi, nil
	}
	switch good, err := ok(lo); {
	case err != nil:
		return hi, err
	case good:
		return lo, nil
	}
	for range probes - 1 {
		mid := lo + (hi-lo)/2
		if mid > 0 && mid < floor {
			mid = floor
		}
		if mid <= lo || mid >= hi {
			break
		}
		good, err := ok(mid)
		if err != nil {
			return hi, err
		}
		if good {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// waitOrder is the order the waits phase searches the waits in: the
// longest first (ties in schedule order), because every later candidate
// runs the schedule as cut so far, so the biggest cut early makes the
// remaining runs shortest.
func waitOrder(steps []nemesis.Step) []int {
	var idx []int
	for i, st := range steps {
		if st.Wait > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(steps[b].Wait, steps[a].Wait) })
	return idx
}

// withoutZeroWaits is steps without the waits cut to nothing.
func withoutZeroWaits(steps []nemesis.Step) []nemesis.Step {
	return slices.DeleteFunc(slices.Clone(steps), func(st nemesis.Step) bool {
		return st.Fault == "" && st.Heal == "" && st.Until == nil && st.Wait == 0
	})
}

// waits cuts each wait, the longest first, to the shortest that still
// reproduces by a binary search over it (bisect: without it first, or
// LeadWait for a wait before the first fault, then halvings, at most
// MaxProbes candidates), then the workload's duration the same way
// (MinWorkload first, whole seconds).
func (sh *shrinker) waits(ctx context.Context, s *scenario.Scenario) (*scenario.Scenario, error) {
	steps := slices.Clone(s.Nemesis.Steps) // a cut wait stays as 0 until the end, so indexes hold
	res := int64(waitResolution)
	floor := int(sh.opts.MinWait.Round(waitResolution) / waitResolution)
	first := slices.IndexFunc(steps, func(st nemesis.Step) bool { return st.Fault != "" })
	for _, i := range waitOrder(steps) {
		was := steps[i].Wait
		lo := 0
		if i < first {
			lo = int(leadWait / waitResolution) // not dropped: the run's start
		}
		best, err := bisect(lo, ceilDiv(int64(was), res), floor, maxProbes, func(v int) (bool, error) {
			c := slices.Clone(steps)
			c[i].Wait = duration.Duration(int64(v) * res)
			what := fmt.Sprintf("wait of step %d %s -> %s", i+1, was, c[i].Wait)
			if v == 0 {
				what = fmt.Sprintf("without the wait of step %d (%s)", i+1, was)
			}
			return sh.try(ctx, withSteps(s, withoutZeroWaits(c)), what)
		})
		if int64(best)*res < int64(was) {
			steps[i].Wait = duration.Duration(int64(best) * res)
		}
		if err != nil {
			return withSteps(s, withoutZeroWaits(steps)), err
		}
	}
	s = withSteps(s, withoutZeroWaits(steps))
	d := s.Workload.Duration
	best, err := bisect(int(minWorkload/time.Second), ceilDiv(int64(d), int64(time.Second)), 0, maxProbes, func(v int) (bool, error) {
		c := *s
		c.Workload.Duration = duration.Duration(time.Duration(v) * time.Second)
		return sh.try(ctx, &c, fmt.Sprintf("workload.duration %s -> %s", d, c.Workload.Duration))
	})
	if time.Duration(best)*time.Second < d.Std() {
		c := *s
		c.Workload.Duration = duration.Duration(time.Duration(best) * time.Second)
		s = &c
	}
	return s, err
}

// ceilDiv is a/b rounded up: the search's upper end is the value the
// candidate before ran with, never below it.
func ceilDiv(a, b int64) int { return int((a + b - 1) / b) }
