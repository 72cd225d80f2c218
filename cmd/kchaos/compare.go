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
	cmd := &cobra.Command{
		Use:   "compare DIR...",
		Short: "Compare explorations by strategy: runs to the first finding and distinct transitions, per scenario, random against guided",
		Long: `Read every exploration folder (explore.json) under the given folders and
print, per scenario and strategy (random, guided), how many explorations
(base seeds) there are, the run of each one's first finding, the mean runs
to the first finding (a miss counted as the runs made plus one, and marked
"≥"), and the mean distinct transitions the runs covered; then, per
scenario with both, guided's ratios to random. Each exploration is judged
on as many runs as the fewest of its row made; interrupted and sharded
explorations are left out. Make the explorations with
  kchaos explore FILE --runs N --no-shrink --seed S --strategy random|guided
(scripts/compare-strategies.sh does it for many seeds, resuming where it
stopped). docs/explore.md, Guided exploration.
Exit codes: 0 printed, 254 no exploration found or a folder whose
explore.json is not an exploration's (named).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := explore.CompareDirs(args)
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
	return cmd
}

func init() { subcommands = append(subcommands, newCompareCmd) }
