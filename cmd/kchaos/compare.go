package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness/explore"
)

// newCompareCmd prints the random-against-guided table of explorations
// already made (explore.CompareDirs); it only parses flags and prints.
func newCompareCmd() *cobra.Command {
	var asJSON bool
	var runs int
	cmd := &cobra.Command{
		Use:   "compare DIR...",
		Short: "Compare explorations by strategy: runs and seconds to the first finding and distinct transitions, per scenario, against random",
		Long: `Read every exploration folder (explore.json) under the given folders and
print, per scenario and strategy (random, guided, live), how many
explorations (base seeds) there are, the run of each one's first finding,
the mean runs to the first finding (a miss counted as the runs made plus
one, and marked "≥"), the median seed's first finding, the runs with a
finding, the mean distinct transitions the runs covered, and the time
(mean seconds a run, seconds to the first finding, distinct transitions
a minute); then, per scenario, each strategy's ratios to random, said
only as far as the means hold them ("at most" where random missed, no
ratio where both did), and, where random missed, the per-run rate its
runs bound (Clopper-Pearson, one-sided 95%) and the median first finding
that rate implies. Distinct transitions leave out those from before a
partition's first sample (no state of Kafka's), counted again from each
exploration's coverage.json where it was recorded before that rule. Each
exploration is judged on as many runs as the fewest of its
row made, or on its first --runs N (the same explorations at a shorter
horizon); interrupted, unfinished (fewer runs than asked, still running)
and sharded explorations are left out. Make the
explorations with
  kchaos explore FILE --runs N --no-shrink --seed S --strategy random|guided|live
(scripts/compare-strategies.sh does it for many seeds, resuming where it
stopped). docs/explore.md, Comparing the strategies.
Exit codes: 0 printed, 254 no exploration found, a folder whose
explore.json or coverage.json is not an exploration's (named),
explorations of one scenario on different configs (Kafka, settings or
mix: both folders named), or a negative --runs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := explore.CompareDirs(args, runs)
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				b, err := json.MarshalIndent(rows, "", "  ")
				if err != nil {
					return err
				}
				fmt.Println(string(b))
				return nil
			}
			fmt.Print(explore.CompareMarkdown(rows))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	cmd.Flags().IntVar(&runs, "runs", 0, "judge each exploration on its first N runs (0: as many as the fewest of its row made)")
	return cmd
}

func init() { subcommands = append(subcommands, newCompareCmd) }
