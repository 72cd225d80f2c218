package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness/explore"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Join the shard folders of one 'kchaos explore --shard I/N' into one findings list",
		Long: `Join exploration folders that are shards of one exploration (the same
scenario, --seed and N of --shard I/N, e.g. from CI runners) into one page:
every run by index, every finding with its folder, and which shards are
missing. --out DIR writes merged.md and merged.json there.
Exit codes: 0 no finding, 1 a finding, 2 shards missing (and no finding),
254 bad input (a folder that is not an exploration's, shards of two
explorations, a shard twice).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := explore.Merge(args)
			if err != nil {
				return badInput(err)
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return internal(err)
				}
				b, err := json.MarshalIndent(m, "", "  ")
				if err == nil {
					err = os.WriteFile(filepath.Join(out, "merged.json"), append(b, '\n'), 0o644)
				}
				if err == nil {
					err = os.WriteFile(filepath.Join(out, "merged.md"), []byte(m.Markdown()), 0o644)
				}
				if err != nil {
					return internal(err)
				}
			}
			fmt.Fprint(cmd.OutOrStdout(), m.Markdown())
			switch {
			case len(m.Findings) > 0:
				return withCode(exitInvalid)
			case len(m.Missing) > 0:
				return withCode(exitUnknown)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write merged.md and merged.json into this folder")
	return cmd
}
