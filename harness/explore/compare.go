package explore

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
)

// Comparing strategies (issue 40, item 3): the same scenario explored
// with random and with guided schedules, one exploration per base seed,
// each for the same number of runs without shrinking, then per scenario
// and strategy how many runs it took to the first finding and how many
// distinct transitions the runs covered. The explorations are ordinary
// ones (explore.json); Compare only reads them, so a comparison grows
// run by run across machines and days (scripts/compare-strategies.sh)
// and the table is made again from whatever has finished.
//
// Runs are not all equally long: a guided run's schedule holds its
// strikes until their effect shows, so it may run longer than a random
// run of the same random section (on the untargeted weak config, 61 s
// against 48 s). So beside the runs, the table gives the time: the
// seconds to the first finding (the runs before it and its own, whole)
// and the distinct transitions covered a minute, so that neither
// strategy's figure rests on having been given more time.

// StrategyRow is one scenario under one strategy over its explorations.
type StrategyRow struct {
	Scenario string `json:"scenario"`
	Strategy string `json:"strategy"`
	// Runs is the runs each exploration made (the fewest, when they
	// differ: each exploration is judged on its first Runs runs, so that
	// every seed of the row had the same chances).
	Runs int `json:"runs"`
	// Seeds are the explorations' base seeds; First the run (1-based) of
	// each one's first finding, 0 for none within Runs.
	Seeds []int64 `json:"seeds"`
	First []int   `json:"first_finding"`
	// Found counts the explorations with a finding; MeanFirst is the mean
	// run of the first finding, a miss counted as Runs+1 (so a lower bound
	// of the true mean when any missed, and said so by missed).
	Found     int     `json:"found"`
	MeanFirst float64 `json:"mean_first_finding"`
	// MedianFirst is the median seed's first finding (medianFirst: 0,
	// that seed found nothing within Runs).
	MedianFirst int `json:"median_first_finding"`
	// RunsFound counts the judged runs with a finding, of RunsJudged (the
	// runs among every exploration's first Runs runs that reached their
	// check: one that failed before it is no draw that found nothing): a
	// random row's per-run rate (comparerate.go).
	RunsFound  int `json:"runs_with_finding"`
	RunsJudged int `json:"runs_judged"`
	// Transitions are each exploration's distinct transitions after its
	// Runs runs; MeanTransitions their mean.
	Transitions     []int   `json:"transitions"`
	MeanTransitions float64 `json:"mean_transitions"`
	// MeanRunSeconds is the mean length of a run (RunRecord.Seconds: its
	// whole wall time, a fresh cluster's start included).
	MeanRunSeconds float64 `json:"mean_run_seconds"`
	// SecondsToFirst is each exploration's time to its first finding,
	// the runs before it and its own; a miss counts its Runs runs' time
	// (a lower bound, as MeanFirst's). MeanSecondsToFirst is their mean.
	SecondsToFirst     []float64 `json:"seconds_to_first_finding"`
	MeanSecondsToFirst float64   `json:"mean_seconds_to_first_finding"`
	// TransitionsPerMinute is the mean over the explorations of their
	// distinct transitions over their Runs runs' minutes.
	TransitionsPerMinute float64 `json:"transitions_per_minute"`
	// FaultTransitions are each exploration's distinct transitions made
	// by its faults, the heals apart (Coverage.DistinctFaults: what a
	// strategy chooses; every strike owes a heal whoever chose it), and
	// MeanFaultTransitions their mean: known only at an exploration's
	// whole length from its coverage.json (nil and 0 otherwise).
	FaultTransitions     []int   `json:"fault_transitions,omitempty"`
	MeanFaultTransitions float64 `json:"mean_fault_transitions,omitempty"`
	// Failed counts runs that failed before their check, over all the
	// explorations.
	Failed int `json:"failed_runs"`
	// AsRecorded counts the explorations whose Transitions figure could
	// not be counted under today's rule (Summary.countedUnsampled: at a
	// horizon short of their runs, or without a coverage.json), so may
	// include transitions from before a first sample: at most that.
	AsRecorded int `json:"transitions_as_recorded,omitempty"`
	// classes are the finding classes seen, sorted.
	Classes []string `json:"classes,omitempty"`
}

// missed says some exploration of the row found nothing within its Runs:
// its means to the first finding (runs and seconds) are lower bounds.
func (r StrategyRow) missed() bool { return r.Found < len(r.Seeds) }

// CompareDirs finds every exploration folder (one holding explore.json)
// under roots and compares them (Compare), each judged on its first runs
// runs (0: as many as the fewest of its row made; fewer where that is
// fewer), so that one set of long explorations gives the comparison at
// every horizon. A folder whose explore.json is not an exploration's
// record, or a negative runs, is bad input naming it.
func CompareDirs(roots []string, runs int) ([]StrategyRow, error) {
	if runs < 0 {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("--runs %d: want 0 (as many as every exploration of a row made) or a number of runs", runs)}
	}
	var sums []*Summary
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || d.Name() != SummaryFile {
				return nil
			}
			s, err := readShard(filepath.Dir(path))
			if err != nil {
				return err
			}
			if err := recount(s, filepath.Dir(path)); err != nil {
				return err
			}
			s.dir = filepath.Dir(path)
			sums = append(sums, s)
			return filepath.SkipDir
		})
		if err != nil {
			return nil, &scenario.BadInputError{Err: err}
		}
	}
	if len(sums) == 0 {
		return nil, &scenario.BadInputError{Err: fmt.Errorf("no exploration folder (%s) under %s", SummaryFile, strings.Join(roots, ", "))}
	}
	if err := sameConfig(sums); err != nil {
		return nil, &scenario.BadInputError{Err: err}
	}
	return compare(sums, runs), nil
}

// sameConfig refuses explorations of one scenario name that were made on
// different configs (Kafka release, settings, mix): a row, and a ratio
// between rows, compares strategies on one config, and a name alone does
// not say the config (one file explored with a --set, or an earlier
// version of a file, keeps its name). Left-out explorations (compare's
// rule) are not held to it.
func sameConfig(sums []*Summary) error {
	first := map[string]*Summary{}
	for _, s := range sums {
		if leftOut(s) {
			continue
		}
		f, ok := first[s.Scenario]
		if !ok {
			first[s.Scenario] = s
			continue
		}
		if d := configDiff(f, s); d != "" {
			return fmt.Errorf("%s and %s: explorations of %s on different configs (%s): a row compares strategies on one config; compare them apart",
				f.dir, s.dir, s.Scenario, d)
		}
	}
	return nil
}

// configDiff says how b's config differs from a's ("Kafka 4.4.0 against
// 4.3.2"; "" where it does not): the Kafka release, the settings, the
// mix (in any order). What compare and merge hold explorations to.
func configDiff(a, b *Summary) string {
	mix := func(s *Summary) string { return strings.Join(slices.Sorted(slices.Values(s.Faults)), ", ") }
	for _, d := range [][3]string{{"Kafka", a.Kafka, b.Kafka}, {"settings", settingsText(a.Settings), settingsText(b.Settings)}, {"mix", mix(a), mix(b)}} {
		if d[1] != d[2] {
			return fmt.Sprintf("%s %s against %s", d[0], d[1], d[2])
		}
	}
	return ""
}

// leftOut says compare leaves s out: an interrupted, sharded or
// unfinished exploration, whose runs are not a whole exploration's.
func leftOut(s *Summary) bool { return s.Interrupted || s.Shard != "" || unfinished(s) }

// recount counts s's distinct transitions again from the coverage.json
// beside its explore.json, under today's rule (states.Covered.Sampled):
// an exploration recorded before that rule counted the transitions from
// before a first sample, and its coverage.json, which holds them all, is
// what tells them apart. Without a coverage.json s stays as recorded.
func recount(s *Summary, dir string) error {
	path := filepath.Join(dir, states.CoverageFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	cov, err := states.Read(path)
	if err != nil {
		return err
	}
	s.Transitions, s.faults, s.recounted = cov.Distinct(), cov.DistinctFaults(), true
	return nil
}

// compare groups explorations by scenario and strategy. An interrupted,
// unfinished or sharded exploration is left out (its runs are not a whole
// exploration's), and each is judged on as many runs as the fewest of its
// row made, at most runs (0: no bound).
func compare(sums []*Summary, runs int) []StrategyRow {
	type key struct{ scen, strat string }
	groups := map[key][]*Summary{}
	for _, s := range sums {
		if leftOut(s) {
			continue
		}
		k := key{s.Scenario, strategyOf(s.Strategy)}
		groups[k] = append(groups[k], s)
	}
	var rows []StrategyRow
	for k, g := range groups {
		rows = append(rows, compareRow(k.scen, k.strat, g, runs))
	}
	slices.SortFunc(rows, func(a, b StrategyRow) int {
		return cmp.Or(cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Strategy, b.Strategy))
	})
	return rows
}

// unfinished says s has fewer runs than its bound and nothing ended it
// early (no stop, not at its --stop-after): an exploration still running,
// or whose harness died, writes explore.json after every run. Counted, it
// would cut every seed of its row to the runs it made so far.
func unfinished(s *Summary) bool {
	return s.Runs > 0 && len(s.RunRecords) < s.Runs && s.Stopped == "" && !s.atStopAfter()
}

func compareRow(scen, strat string, g []*Summary, runs int) StrategyRow {
	row := StrategyRow{Scenario: scen, Strategy: strat, Runs: len(g[0].RunRecords)}
	for _, s := range g {
		row.Runs = min(row.Runs, len(s.RunRecords))
	}
	if runs > 0 {
		row.Runs = min(row.Runs, runs)
	}
	slices.SortFunc(g, func(a, b *Summary) int { return cmp.Compare(a.BaseSeed, b.BaseSeed) })
	classes := map[string]bool{}
	sumFirst, sumTrans := 0, 0
	var sumSecs, sumToFirst, sumRate float64
	for _, s := range g {
		first := 0
		secs, toFirst := 0.0, 0.0
		for i, r := range s.RunRecords[:row.Runs] {
			secs += r.Seconds
			if r.judged() {
				row.RunsJudged++
			} else {
				row.Failed++
			}
			if len(r.Classes) > 0 {
				row.RunsFound++
				if first == 0 {
					first, toFirst = i+1, secs
				}
			}
			for _, c := range r.Classes {
				classes[c] = true
			}
		}
		row.Seeds = append(row.Seeds, s.BaseSeed)
		row.First = append(row.First, first)
		if first > 0 {
			row.Found++
			sumFirst += first
		} else {
			sumFirst += row.Runs + 1
			toFirst = secs
		}
		row.SecondsToFirst = append(row.SecondsToFirst, toFirst)
		sumSecs, sumToFirst = sumSecs+secs, sumToFirst+toFirst
		t := transitionsAfter(s, row.Runs)
		if s.countedUnsampled() && (row.Runs < len(s.RunRecords) || !s.recounted) {
			row.AsRecorded++
		}
		row.Transitions = append(row.Transitions, t)
		sumTrans += t
		if secs > 0 {
			sumRate += float64(t) / (secs / 60)
		}
	}
	n := float64(len(g))
	row.FaultTransitions, row.MeanFaultTransitions = faultTransitions(g, row.Runs)
	row.MedianFirst = medianFirst(row.First)
	row.MeanFirst, row.MeanTransitions = float64(sumFirst)/n, float64(sumTrans)/n
	row.MeanSecondsToFirst, row.TransitionsPerMinute = sumToFirst/n, sumRate/n
	if row.Runs > 0 {
		row.MeanRunSeconds = sumSecs / (n * float64(row.Runs))
	}
	row.Classes = slices.Sorted(func(yield func(string) bool) {
		for c := range classes {
			if !yield(c) {
				return
			}
		}
	})
	return row
}

// faultTransitions is each exploration's distinct fault transitions and
// their mean, where every one of g was counted from its coverage.json at
// its whole length (n runs): a run's own record does not split its new
// transitions into faults and heals.
func faultTransitions(g []*Summary, n int) ([]int, float64) {
	var out []int
	sum := 0
	for _, s := range g {
		if !s.recounted || n < len(s.RunRecords) {
			return nil, 0
		}
		out, sum = append(out, s.faults), sum+s.faults
	}
	return out, float64(sum) / float64(len(g))
}

// transitionsAfter is the distinct transitions s covered in its first n
// runs: the whole exploration's figure when n is all of them; else the
// sum of the first n runs' new transitions (each run's count of the
// transitions no run before it had, so their sum is the distinct count).
func transitionsAfter(s *Summary, n int) int {
	if n >= len(s.RunRecords) {
		return s.Transitions
	}
	t := 0
	for _, r := range s.RunRecords[:n] {
		t += r.NewTransitions
	}
	return t
}

// CompareMarkdown is the rows as a markdown table, a scenario's
// strategies side by side, then per scenario each other strategy's
// ratios to random (runs and seconds to the first finding, distinct
// transitions, and a minute) where both ran.
func CompareMarkdown(rows []StrategyRow) string {
	var b strings.Builder
	b.WriteString("| scenario | strategy | explorations (seeds) | runs each | found | first finding (run, per seed; - none) | mean runs to first finding | median | runs with a finding | mean distinct transitions | runs failed | mean s a run | mean s to first finding | distinct transitions a minute |\n")
	b.WriteString("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		firsts := make([]string, len(r.First))
		for i, f := range r.First {
			firsts[i] = "-"
			if f > 0 {
				firsts[i] = fmt.Sprint(f)
			}
		}
		mean, secs := fmt.Sprintf("%.1f", r.MeanFirst), fmt.Sprintf("%.0f", r.MeanSecondsToFirst)
		if r.missed() {
			mean, secs = "≥ "+mean, "≥ "+secs
		}
		median := fmt.Sprint(r.MedianFirst)
		if r.MedianFirst == 0 {
			median = fmt.Sprintf("> %d", r.Runs)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d of %d | %s | %s | %s | %d of %d | %.1f | %d | %.0f | %s | %.1f |\n", r.Scenario, r.Strategy, len(r.Seeds), r.Runs,
			r.Found, len(r.Seeds), strings.Join(firsts, " "), mean, median, r.RunsFound, r.RunsJudged, r.MeanTransitions, r.Failed, r.MeanRunSeconds, secs, r.TransitionsPerMinute)
	}
	var ratios []string
	for i, r := range rows {
		if r.Strategy == StrategyRandom {
			continue
		}
		j := slices.IndexFunc(rows, func(o StrategyRow) bool { return o.Scenario == r.Scenario && o.Strategy == StrategyRandom })
		if j < 0 || rows[j].MeanFirst == 0 || rows[j].MeanTransitions == 0 {
			continue
		}
		rnd := rows[j]
		line := fmt.Sprintf("- %s: %s; it covers %.2f× random's distinct transitions (%.1f against %.1f)",
			rows[i].Scenario, firstFindingText(r, rnd), r.MeanTransitions/rnd.MeanTransitions, r.MeanTransitions, rnd.MeanTransitions)
		if rnd.MeanSecondsToFirst > 0 && rnd.TransitionsPerMinute > 0 {
			line += fmt.Sprintf("; in time, it %s, and covers %.2f× random's distinct transitions a minute (%.1f against %.1f)",
				boundedRatio("seconds to the first finding", "%.0f", r.MeanSecondsToFirst, rnd.MeanSecondsToFirst, r.missed(), rnd.missed()),
				r.TransitionsPerMinute/rnd.TransitionsPerMinute, r.TransitionsPerMinute, rnd.TransitionsPerMinute)
		}
		if r.MeanFaultTransitions > 0 && rnd.MeanFaultTransitions > 0 {
			line += fmt.Sprintf("; of those, the faults' own (the heals apart, which every strike owes whoever chose it): %.2f× (%.1f against %.1f)",
				r.MeanFaultTransitions/rnd.MeanFaultTransitions, r.MeanFaultTransitions, rnd.MeanFaultTransitions)
		}
		ratios = append(ratios, line)
	}
	for _, r := range rows {
		if r.AsRecorded > 0 {
			ratios = append(ratios, fmt.Sprintf("- %s, %s: %d of its %d explorations predate the rule that leaves out the transitions from before a first sample, and their runs' coverage is not kept: their distinct transitions at %d runs are as recorded, so at most that",
				r.Scenario, r.Strategy, r.AsRecorded, len(r.Seeds), r.Runs))
		}
	}
	if len(ratios) > 0 {
		b.WriteString("\n" + strings.Join(ratios, "\n") + "\n")
	}
	return b.String()
}
