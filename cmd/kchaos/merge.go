package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var out, store string
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Join the shard folders of one 'kchaos explore' or 'kchaos suite' run with --shard I/N",
		Long: `Join exploration folders that are shards of one exploration (the same
scenario, --seed and N of --shard I/N, e.g. from CI runners) into one page:
every run by index, every finding with its folder, and which shards are
missing. --out DIR writes merged.md and merged.json there.
Exit codes: 0 no finding, 1 a finding, 2 shards missing (and no finding).

Suite folders (suite --shard I/N) are joined into one suite page, suite.json
and junit.xml (in --out, or store/suite-<name>/<timestamp>/), naming the
shards and cells missing. Exit codes: the suite's, and 2 when shards are
missing and no cell differed.

254: a folder that is neither, shards of two runs, a shard twice.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if explore.IsSuite(args[0]) {
				return mergeSuites(cmd, args, out, store)
			}
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
	cmd.Flags().StringVar(&out, "out", "", "write the merged pages into this folder (suites: default store/suite-<name>/<timestamp>/)")
	cmd.Flags().StringVar(&store, "store", harness.DefaultStore, "store folder (suites, without --out)")
	return cmd
}

// mergeSuites joins suite shard folders and prints where the page is.
func mergeSuites(cmd *cobra.Command, dirs []string, out, store string) error {
	m, err := explore.MergeSuites(dirs)
	if err != nil {
		return badInput(err)
	}
	if out == "" {
		if out, err = harness.MakeStoreDir(store, "suite name", m.File.Name, "suite-"); err != nil {
			return runError(err)
		}
	}
	if err := m.Write(out); err != nil {
		return internal(err)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintln(w, "suite:", filepath.Join(out, "suite.md"))
	fmt.Fprintf(w, "%d cells from %d of %d shard(s)\n", len(m.File.Cells), m.Shards-len(m.Missing), m.Shards)
	if len(m.Missing) > 0 {
		fmt.Fprintf(w, "missing shards: %v (cells %v)\n", m.Missing, m.MissingCells)
	}
	if code := m.ExitCode(); code != exitValid {
		return withCode(code)
	}
	return nil
}
