package explore

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Reading the first finding for what the runs hold. An exploration that
// found nothing within its runs says only that its first finding comes
// later: a row's mean counts such a miss as Runs+1, a lower bound, and a
// ratio of two lower bounds says nothing (on elr-emptied, guided at least
// 3.5 runs and random at least 5.0 once read as "0.70×"). So the ratio
// says whether it is exact, a bound or no ratio at all, and where random
// missed, the table reads random's runs for what they are: independent
// draws (each run's schedule comes from its own seed; the cluster a run
// reuses was healed and read to its end), so its runs with a finding, k of
// n, bound its per-run rate (Clopper-Pearson, one-sided 95%), and the rate
// bounds the median run of its first finding (geometric: each run finds
// something with that probability). A guided strategy's runs are not
// independent (each is chosen from the ones before), so for it only the
// median seed's first finding is read, as the explorations made it.

// rateConfidence is the one-sided confidence of a per-run rate's bounds.
const rateConfidence = 0.95

// rateUpper is the one-sided Clopper-Pearson upper bound, at
// rateConfidence, of a per-run rate seen in k runs of n: the quantile of
// Beta(k+1, n-k) (1 where k is n, or for no runs). With k = 0 it is
// 1-(1-rateConfidence)^(1/n), about 3/n (the rule of three).
func rateUpper(k, n int) float64 {
	if n <= 0 || k < 0 || k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(rateConfidence)
}

// geometricMedian is the median run of the first finding where every run
// finds something with probability p, independently: the least m with
// 1-(1-p)^m >= 1/2 (0 for p <= 0: never).
func geometricMedian(p float64) int {
	switch {
	case p >= 1:
		return 1
	case p <= 0:
		return 0
	}
	m := int(math.Ceil(math.Log(0.5) / math.Log1p(-p)))
	// Guard the ceiling against rounding where m is whole (p = 1-√½
	// reaches one half at run 2, which floating point may miss by 1e-16).
	for m > 1 && 1-math.Pow(1-p, float64(m-1)) >= 0.5-1e-12 {
		m--
	}
	return m
}

// medianFirst is the median seed's first finding: the seeds' first
// findings sorted, a miss after every run, and the middle one (the upper
// of the two middle ones: the claim it backs, "half the seeds found it by
// then", holds of it); 0 when that seed found nothing within the runs.
func medianFirst(first []int) int {
	if len(first) == 0 {
		return 0
	}
	s := slices.Clone(first)
	slices.SortFunc(s, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case a == 0:
			return 1
		case b == 0:
			return -1
		}
		return a - b
	})
	return s[len(s)/2]
}

// firstFindingText is how many runs strategy row g needs to its first
// finding against random's row r, in words: the means' ratio where both
// are exact, "at most" where only random missed, "at least" where only g
// did, and no ratio where both did; then, where random missed, its
// runs read as independent draws: the per-run rate they bound and the
// median first finding that rate implies, against g's median seed's.
func firstFindingText(g, r StrategyRow) string {
	s := fmt.Sprintf("%s %s", g.Strategy, boundedRatio("runs to the first finding", "%.1f", g.MeanFirst, r.MeanFirst, g.missed(), r.missed()))
	if !r.missed() {
		return s
	}
	hi := rateUpper(r.RunsFound, r.RunsJudged)
	m := geometricMedian(hi)
	s += fmt.Sprintf("; random found something in %d of %d runs, independent draws: a per-run rate of at most %.1f%% (%.0f%%), so a median first finding at run %d or later", r.RunsFound, r.RunsJudged, 100*hi, 100*rateConfidence, m)
	if g.MedianFirst == 0 {
		return s + fmt.Sprintf(", and %s's median seed found nothing in %d runs", g.Strategy, g.Runs)
	}
	return s + fmt.Sprintf(", against run %d for %s's median seed (at most %.2f×, random's bound at %.0f%%)", g.MedianFirst, g.Strategy, float64(g.MedianFirst)/float64(m), 100*rateConfidence)
}

// boundedRatio is a strategy's mean g against random's r, each a lower
// bound where its row missed (a miss counted as the runs, or their time,
// and no more): "needs 0.50× random's <what> (2.0 against 4.0)" where
// both are exact, "needs at most" where only r is a bound, "needs at
// least" where only g is, and "has no ratio" where both are; num formats
// the means. r is not 0 (CompareMarkdown gives no ratio to a random row
// without a mean).
func boundedRatio(what, num string, g, r float64, gMissed, rMissed bool) string {
	n := func(v float64, bound bool) string {
		if bound {
			return "at least " + fmt.Sprintf(num, v)
		}
		return fmt.Sprintf(num, v)
	}
	if gMissed && rMissed {
		return fmt.Sprintf("has no ratio to random's %s (both means lower bounds: %s against %s)", what, n(g, true), n(r, true))
	}
	q := ""
	switch {
	case rMissed:
		q = "at most "
	case gMissed:
		q = "at least "
	}
	return fmt.Sprintf("needs %s%.2f× random's %s (%s against %s)", q, g/r, what, n(g, gMissed), n(r, rMissed))
}
