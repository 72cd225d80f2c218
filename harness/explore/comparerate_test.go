package explore

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestRateUpper checks the Clopper-Pearson upper bound against its
// definition: at the bound, k or fewer of n runs find something with
// probability 1-rateConfidence.
func TestRateUpper(t *testing.T) {
	for _, c := range []struct{ k, n int }{{0, 40}, {2, 40}, {4, 40}, {1, 8}, {8, 40}, {39, 40}, {40, 40}, {0, 1}} {
		hi := rateUpper(c.k, c.n)
		if hi > 1 || hi < float64(c.k)/float64(c.n) {
			t.Errorf("%d of %d: upper bound %g does not hold the rate seen", c.k, c.n, hi)
		}
		if c.k < c.n {
			if p := (distuv.Binomial{N: float64(c.n), P: hi}).CDF(float64(c.k)); math.Abs(p-(1-rateConfidence)) > 1e-6 {
				t.Errorf("%d of %d: P(X <= k) at the upper bound %g is %g, want %g", c.k, c.n, hi, p, 1-rateConfidence)
			}
		} else if hi != 1 {
			t.Errorf("%d of %d: upper bound %g, want 1", c.k, c.n, hi)
		}
	}
	// The rule of three's exact form, and no runs bound nothing.
	if hi := rateUpper(0, 40); math.Abs(hi-(1-math.Pow(0.05, 1.0/40))) > 1e-9 {
		t.Errorf("0 of 40: upper bound %g, want 1-0.05^(1/40)", hi)
	}
	if hi := rateUpper(0, 0); hi != 1 {
		t.Errorf("no runs: upper bound %g, want 1", hi)
	}
}

func TestGeometricMedian(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want int
	}{
		{1, 1}, {0.5, 1}, {0.49, 2},
		{1 - math.Sqrt(0.5), 2}, // exactly half by run 2
		{0.0721575, 10},         // 0 of 40 runs' upper bound: 9.25 runs
		{0, 0},
	} {
		if got := geometricMedian(c.p); got != c.want {
			t.Errorf("p %g: median %d, want %d", c.p, got, c.want)
		}
	}
}

func TestMedianFirst(t *testing.T) {
	for _, c := range []struct {
		first []int
		want  int
	}{
		{[]int{1, 3}, 3},
		{[]int{3, 0}, 0},
		{[]int{0, 0, 2}, 0},
		{[]int{2, 0, 1}, 2},
		{[]int{0, 0, 2, 2, 0, 2, 3, 3, 0, 3}, 3}, // elr-emptied, guided, 2026-12-07
		{nil, 0},
	} {
		if got := medianFirst(c.first); got != c.want {
			t.Errorf("%v: median %d, want %d", c.first, got, c.want)
		}
	}
}

// TestFirstFindingText: a ratio is said only as far as the means hold
// it; where random missed, its runs' rate is read.
func TestFirstFindingText(t *testing.T) {
	row := func(strat string, first []int, runs, found int) StrategyRow {
		r := StrategyRow{Strategy: strat, Runs: runs, First: first, Seeds: make([]int64, len(first)), RunsFound: found, RunsJudged: runs * len(first)}
		sum := 0
		for _, f := range first {
			if f > 0 {
				r.Found++
				sum += f
			} else {
				sum += runs + 1
			}
		}
		r.MeanFirst, r.MedianFirst = float64(sum)/float64(len(first)), medianFirst(first)
		return r
	}
	for _, c := range []struct {
		name string
		g, r StrategyRow
		want []string
		not  []string
	}{
		{"both exact", row("guided", []int{1, 1}, 4, 2), row("random", []int{2, 2}, 4, 3),
			[]string{"guided needs 0.50× random's runs to the first finding (1.0 against 2.0)"}, []string{"at most", "independent draws"}},
		{"random missed", row("guided", []int{1, 2}, 4, 2), row("random", []int{0, 2}, 4, 1),
			[]string{"needs at most 0.43× random's runs to the first finding (1.5 against at least 3.5)", "1 of 8 runs", "at most 47.1%", "run 2 or later", "run 2 for guided's median seed"}, nil},
		{"guided missed", row("guided", []int{0, 2}, 4, 1), row("random", []int{1, 1}, 4, 4),
			[]string{"needs at least 3.50× random's runs to the first finding (at least 3.5 against 1.0)"}, []string{"independent draws"}},
		{"both missed", row("guided", []int{0, 2, 3}, 4, 2), row("random", []int{0, 0, 0}, 4, 0),
			[]string{"has no ratio to random's runs to the first finding (both means lower bounds: at least 3.3 against at least 5.0)", "0 of 12 runs", "against run 3 for guided's median seed"}, []string{"×, random's runs"}},
		{"both missed, guided's median too", row("guided", []int{0, 0, 3}, 4, 1), row("random", []int{0, 0, 0}, 4, 0),
			[]string{"no ratio", "guided's median seed found nothing in 4 runs"}, nil},
	} {
		got := firstFindingText(c.g, c.r)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", c.name, got, w)
			}
		}
	}
}
