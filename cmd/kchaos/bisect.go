package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newBisectCmd) }

func newBisectCmd() *cobra.Command {
	var (
		f      runFlags
		varies []string
		runs   int
	)
	cmd := &cobra.Command{
		Use:   "bisect REPRO [--kafka LIST] [--runs N] [--vary key=v1,v2]",
		Short: "Run a reproduction on every Kafka version (or setting) N times and say which it affects",
		Long: `Run a reproduction (a repro.yaml of 'kchaos explore', or any scenario) on every
version of --kafka (a list: 3.9.x,4.4.x,4.1.2; default: every release kchaos
knows, or the repro's own version when --vary is given), under every
combination of --vary as in matrix, --runs times each. Writes
store/bisect-<name>/<timestamp>/ with the matrix page of every run and
bisect.md: each version's reproduced k/N and anomaly counts, and the first and
last affected. A run reproduces when it shows the class of the finding.json
beside the repro (any finding when there is none).
Exit codes: 0 the table was written, 2 a run could not be made (no run made:
"nothing was judged"), 254 bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kafkas := f.kafka
			f.kafka = "" // each row sets its own version
			b, err := explore.NewBisect(args[0], kafkas, runs, varies, func(sets []string) (*scenario.Scenario, error) {
				s, _, err := f.load(args[0], sets...)
				return s, err
			})
			if err != nil {
				return badInput(err)
			}
			return runBatchThen("bisect", b.Plan, &f, func(res *harness.BatchResult) error {
				rows := b.Table(res.Rows)
				if err := b.Write(res.Dir, rows); err != nil {
					return internal(err)
				}
				fmt.Println("bisect:", filepath.Join(res.Dir, "bisect.md"))
				fmt.Print(b.Markdown(rows))
				if why := b.NothingJudged(rows); why != nil {
					return &exitError{code: exitUnknown, err: why}
				}
				for _, r := range rows {
					if r.NotRun > 0 {
						return withCode(exitUnknown)
					}
				}
				return nil
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringArrayVar(&varies, "vary", nil, "a setting and its values: key=v1,v2 (repeatable), as in matrix")
	cmd.Flags().IntVar(&runs, "runs", explore.DefaultTries, "runs per version (and setting)")
	return cmd
}
