package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newMatrixCmd) }

func newMatrixCmd() *cobra.Command {
	var (
		f      runFlags
		varies []string
		kafkas string // from --kafka when it lists versions
		runs   int
	)
	cmd := &cobra.Command{
		Use:   "matrix NAME|FILE --vary key=v1,v2 [--vary ...]",
		Short: "Run a scenario under every combination of settings and compare them",
		Long: `Run every combination of the --vary settings on a fresh cluster and write
one comparison table (matrix.md, matrix.html, matrix.json): acked records lost,
offsets reused, other anomalies, seconds each partition was offline, send errors
by code and the verdict of each configuration.

Keys: unclean, elr (on/off/default), acks (0/1/all), min.insync (topic, brokers
and controllers), kafka (e.g. 4.1.x), idempotent, or any scenario path.
Exit code: 0 when every run was valid, 1 when any was invalid, 2 otherwise
(unknown verdicts or failed runs), 254 bad input.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(cmd *cobra.Command, args []string) error {
			// --kafka takes a list here: each version is a row (4.1.x is the
			// newest 4.1 patch kchaos knows).
			if strings.ContainsAny(f.kafka, ",x") {
				kafkas, f.kafka = f.kafka, ""
			}
			plan, err := harness.NewMatrixPlan(varies, kafkas, runs, func(sets []string) (*scenario.Scenario, error) {
				s, _, err := f.load(args[0], sets...)
				return s, err
			})
			if err != nil {
				return badInput(err)
			}
			return runBatch("matrix", plan, &f)
		},
	}
	f.register(cmd)
	cmd.Flags().StringArrayVar(&varies, "vary", nil, "a setting and its values: key=v1,v2 (repeatable)")
	cmd.Flags().IntVar(&runs, "runs", 1, "runs per combination")
	return cmd
}
