package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newSuiteCmd) }

func newSuiteCmd() *cobra.Command {
	var (
		f             runFlags
		only          string
		runs          int
		baseline      string
		shard         string
		reuseClusters bool
	)
	cmd := &cobra.Command{
		Use:   "suite [NAME|FILE]",
		Short: "Run scenarios × settings × Kafka versions and judge each cell against its expectation",
		Long: `Run a suite (default: the built-in 'seeds', every seed story with its
expectation) on every Kafka version given by --kafka (a list: 3.9.x,4.4.x,
4.1.2, latest; default: every release kchaos knows, each image built first
with 'make image KAFKA_VERSION=V'). Each cell is one scenario under one set of
settings on one version, judged against the scenario's 'outcome' checks.
Writes store/suite-<name>/<timestamp>/ with suite.md, suite.html, suite.json
and junit.xml (one testcase per cell, named scenario/settings/version).
--shard I/N runs every Nth cell (CI runners); 'kchaos merge' joins the
shards' folders into one page and one junit.xml.
--set applies to every cell. --baseline DIR lists the cells whose status
changed since an earlier suite folder.
Exit codes: 0 every cell matched, 1 a cell differed (a regression or a new
finding), 2 a cell could not be judged, or nothing was judged (every cell
not applicable on these versions; --allow-empty passes that), 254 bad input.`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeSuites,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "seeds"
			if len(args) == 1 {
				name = args[0]
			}
			s, err := harness.LoadSuite(name)
			if err != nil {
				return badInput(err)
			}
			if runs < 1 {
				return badInput(fmt.Errorf("--runs %d: want at least 1", runs))
			}
			versions := splitList(f.kafka)
			f.kafka = "" // each cell sets its own version
			var onlyList []string
			if cmd.Flags().Changed("only") {
				if onlyList, err = harness.ParseOnly(only); err != nil {
					return badInput(err)
				}
			}
			// Every cell is loaded and checked before the first cluster.
			plan, err := harness.SuitePlan(s, harness.SuiteOptions{
				Kafka: versions, Only: onlyList, Runs: runs, Baseline: baseline, ReuseClusters: reuseClusters,
				Load: func(n string, sets []string) (*scenario.Scenario, error) {
					sc, _, err := f.load(n, sets...)
					return sc, err
				},
			})
			if err != nil {
				return badInput(err)
			}
			sh, err := explore.ParseShard(shard)
			if err != nil {
				return badInput(err)
			}
			if shard == "" {
				return runBatch("suite", plan, &f)
			}
			rec := explore.ShardPlan(plan, sh)
			return runBatchThen("suite", plan, &f, func(res *harness.BatchResult) error {
				if err := explore.WriteShard(res.Dir, rec); err != nil {
					return internal(err)
				}
				return batchExit(res)
			})
		},
	}
	f.register(cmd)
	registerAllowEmpty(cmd, &f.allowEmpty)
	cmd.Flags().StringVar(&only, "only", "", "run only these scenarios of the suite (comma-separated, e.g. s1,s2,s4)")
	cmd.Flags().IntVar(&runs, "runs", harness.DefaultRuns, "runs per cell (an entry's own runs: raises it for that entry)")
	cmd.Flags().StringVar(&baseline, "baseline", "", "an earlier suite folder to compare with")
	cmd.Flags().BoolVar(&reuseClusters, "reuse-clusters", false, "let a cell run on the cluster the cell before it left when their cluster settings match (explore's rules); default: a fresh cluster per cell")
	cmd.Flags().StringVar(&shard, "shard", "", "run shard I of N of the cells (I/N, e.g. 2/4): for CI runners; join them with 'kchaos merge'")
	return cmd
}
