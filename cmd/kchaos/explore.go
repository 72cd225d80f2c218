package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newExploreCmd) }

func newExploreCmd() *cobra.Command {
	var (
		f         runFlags
		runs      int
		forD      time.Duration
		faults    string
		keep      bool
		shrinkFor time.Duration
		noShrink  bool
		tries     int
		stopAfter int
		shard     string
		fresh     bool
		strategy  string
	)
	cmd := &cobra.Command{
		Use:   "explore NAME|FILE [--runs N | --for DURATION]",
		Short: "Run a scenario under seeded random faults, keep the runs that fail and shrink each to a minimal repro",
		Long: `Run the scenario's cluster, topic, configs and workload again and again, each
run under a seeded random schedule: the scenario's own 'random:' section, or
else every fault a random schedule can draw that the backend can apply, two at
a time for 10 s with 10 s of quiet between (Jepsen's rotating subsets);
--faults replaces the mix. Run i draws with a seed derived from --seed and i,
so the same --seed redraws the same schedules.

--strategy guided chooses each run's faults, their targets (the leader or
the followers of partition 0) and their moments from the coverage the runs
before reached: each run's history is abstracted into states (ISR against
min.insync.replicas, leader alive, paused, down, fenced or offline, ELR,
the last election clean, ELR or unclean, truncations, quorum and
coordinator moves) and the transitions each fault caused, written to the
run's coverage.json and summed in the exploration's; a seeded UCB1 bandit
picks the faults that paid new transitions or were never tried, and waits
for their effect with until steps bounded by replica.lag.time.max.ms and
broker.session.timeout.ms. Each guided schedule is a scripted scenario,
kept in schedules/run-NNN.yaml. random (the default) stays until
measurements show guided finds more.

A run is a finding when its verdict is invalid or it breaks one of the
scenario's invariant outcome checks (one a run where nothing happened holds,
e.g. lost-write == 0; a story's 'lost-write > 0' is not judged). Each finding is kept in
store/explore-<name>/<timestamp>/findings/<id>/: the run (original-run/), its
schedule as it fired (original.yaml), the shrunk reproduction (repro.yaml,
for 'kchaos run'), its last reproducing rerun (repro-run/) and finding.md.
The shrink drops fault steps (halves, then single steps), cuts each wait,
the longest first, and the workload by a binary search (without it first,
then two halvings), and drops target nodes, keeping a candidate when any of
--tries runs shows the same anomaly class; the repro is rerun --tries times
and its rate written. explore.md lists every run (seed, verdict, anomalies).
Other run folders are deleted unless --keep.

Runs share one cluster while they can: after a run's final heal and read,
a healthy cluster whose run used no fault that leaves state (a changed
quorum, a failed disk, an upgrade, a config or feature change) runs the
next run under a fresh topic and groups; run.json says so. --fresh starts
a cluster per run. A shrink's candidates share clusters the same way; its
final reruns, which measure the repro's rate, run on fresh clusters.
docs/explore.md has the rest.

Runs that fail before their check (no image, no engine) stop the
exploration after 3 in a row. --for is at most a week (168h).

Exit codes: 0 no finding, 1 a finding, 2 no run could be judged (or the
exploration stopped on runs failing in a row), 254 bad input (before any
cluster).`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case cmd.Flags().Changed("runs") && cmd.Flags().Changed("for"):
				return badInput(errors.New("--runs and --for are exclusive: give one"))
			case runs < 1:
				return badInput(fmt.Errorf("--runs %d: want at least 1", runs))
			case cmd.Flags().Changed("for") && forD <= 0:
				return badInput(fmt.Errorf("--for %s: want a positive duration", forD))
			case forD > scenario.MaxDuration:
				return badInput(fmt.Errorf("--for %s: want at most %s (a week)", forD, scenario.MaxDuration))
			case shrinkFor > scenario.MaxDuration:
				return badInput(fmt.Errorf("--shrink-for %s: want at most %s (a week)", shrinkFor, scenario.MaxDuration))
			case shrinkFor <= 0:
				return badInput(fmt.Errorf("--shrink-for %s: want a positive duration", shrinkFor))
			case tries < 1:
				return badInput(fmt.Errorf("--tries %d: want at least 1", tries))
			case stopAfter < 0:
				return badInput(fmt.Errorf("--stop-after %d: want 0 (never) or a number of findings", stopAfter))
			}
			if cmd.Flags().Changed("for") {
				runs = 0
			}
			sh, err := explore.ParseShard(shard)
			if err != nil {
				return badInput(err)
			}
			strat, err := explore.ParseStrategy(strategy)
			if err != nil {
				return badInput(err)
			}
			// --seed is the exploration's base seed, not one run's.
			base := f.seed
			f.seed = 0
			s, overridden, err := f.load(args[0])
			if err != nil {
				return err
			}
			var mix []string
			if cmd.Flags().Changed("faults") {
				if mix, err = explore.ParseFaults(faults); err != nil {
					return badInput(err)
				}
			}
			e, err := explore.Explorable(s, mix)
			if err != nil {
				return badInput(err)
			}
			// A mix the strategy cannot aim is refused before any cluster.
			if err := explore.CheckStrategy(e, strat); err != nil {
				return badInput(fmt.Errorf("--%w", err))
			}
			if why := harness.Reusable(e); why != "" && cmd.Flags().Changed("fresh") && !fresh {
				return badInput(fmt.Errorf("--fresh=false: runs of %s cannot share a cluster (%s)", e.Name, why))
			}
			var sum *explore.Summary
			var dir string
			serr := session(func(ctx context.Context, p *progress.Printer) error {
				cfg := explore.Config{Scenario: e, Runs: runs, For: forD, Seed: base, Shard: sh, Store: f.store, Keep: keep,
					ShrinkFor: shrinkFor, Tries: tries, NoShrink: noShrink, StopAfter: stopAfter, Strategy: strat,
					OnRun: func(pr explore.Progress) {
						p.Finish()
						fmt.Fprintf(os.Stderr, "explore: run %d (seed %d): %s %v; %d runs, %d findings, %.1f runs/hour\n",
							pr.Last.Index, pr.Last.Seed, pr.Last.Verdict, pr.Last.Classes, pr.Done, pr.Findings, pr.PerHour)
					},
					Log: func(line string) { p.Finish(); fmt.Fprintln(os.Stderr, "explore: shrink:", line) }}
				opts := f.options(p)
				opts.Overridden = overridden
				var rerr error
				sum, dir, rerr = explore.ExploreOnClusters(ctx, cfg, opts, !fresh)
				return rerr
			})
			if sum != nil {
				fmt.Println("explore:", filepath.Join(dir, "explore.md"))
				fmt.Print(sum.Markdown())
			}
			if serr != nil {
				return runError(serr)
			}
			return exploreExit(sum)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.Lookup("seed").Usage = "base seed: run i draws with a seed made from it and i (0: pick one and record it in explore.json)"
	fl.IntVar(&runs, "runs", 10, "runs to make (this shard's share of them with --shard)")
	fl.DurationVar(&forD, "for", 0, "explore for this long instead of --runs (e.g. 2h)")
	fl.StringVar(&faults, "faults", "", "the random mix, comma-separated (default: the scenario's random section, or every fault the backend can do)")
	fl.BoolVar(&keep, "keep", false, "keep every run folder, not only the findings'")
	fl.DurationVar(&shrinkFor, "shrink-for", explore.DefaultShrinkFor, "time budget of each finding's shrink")
	fl.BoolVar(&noShrink, "no-shrink", false, "keep findings as found (original.yaml), without shrinking")
	fl.IntVar(&stopAfter, "stop-after", 0, "end the exploration once it holds this many findings (0: its --runs or --for decide)")
	fl.IntVar(&tries, "tries", explore.DefaultTries, "K: runs per shrink candidate, and reruns of the final repro")
	fl.BoolVar(&fresh, "fresh", false, "start a fresh cluster for every run (default: runs share one while no fault leaves state and it is healthy)")
	fl.StringVar(&strategy, "strategy", explore.StrategyRandom, "how each run's faults are chosen: random (seeded random schedules), guided (planned from the coverage of abstract states the runs before reached) or live (chosen as the run goes, in the state the observer shows; experimental); docs/explore.md")
	fl.StringVar(&shard, "shard", "", "do shard I of N of the runs (I/N, e.g. 2/4): for CI runners; join them with 'kchaos merge'")
	return cmd
}

// exploreExit is the exploration's exit (explore.Summary.Exit), saying
// why when it is 2.
func exploreExit(sum *explore.Summary) error {
	if sum == nil {
		return withCode(exitUnknown)
	}
	code := sum.Exit()
	if code == exitValid {
		return nil
	}
	if why := sum.Why(); why != nil {
		return &exitError{code: code, err: why}
	}
	return withCode(code)
}
