package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/internal/owned"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var (
		out, store string
		allowEmpty bool
	)
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Join the shard folders of one 'kchaos explore' or 'kchaos suite' run with --shard I/N",
		Long: `Join exploration folders that are shards of one exploration (the same
scenario, --seed and N of --shard I/N, e.g. from CI runners) into one page:
every run by index, every finding with its folder, and which shards are
missing. --out DIR writes merged.md and merged.json there.
Exit codes: 0 no finding, 1 a finding, 2 shards missing, or a shard none of
whose runs was judged (every run failed before its check, as explore exits 2
on it), or no run judged at all (and no finding).

Suite folders (suite --shard I/N) are joined into one suite page, suite.json
and junit.xml (in --out, or store/suite-<name>/<timestamp>/), naming the
shards and cells missing. Whole runs of one suite over different versions
(one run per release: 'kchaos suite findings --kafka 4.0.2', then 4.1.2, ...)
join the same way, into one page of every release; two runs of one cell are
refused. Exit codes: the suite's, and 2 when shards are
missing or nothing was judged, and no cell differed.

Campaign folders (campaign --shard I/N) are joined into one campaign page
(campaign.md and campaign.json in --out), their findings' signatures
deduplicated across the shards. Exit codes: 1 a new signature, else 2 when
shards or cells are missing, else 0.

--allow-empty passes a merge that judged nothing because there was nothing
to judge (every cell not applicable; shards that made no run).

254: a folder that is neither (an explore.json without the fields an
exploration writes, a file that is not a regular file), shards of two runs,
a shard twice.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if explore.IsSuite(args[0]) {
				return mergeSuites(cmd, args, out, store, allowEmpty)
			}
			if explore.IsCampaign(args[0]) {
				return mergeCampaigns(cmd, args, out)
			}
			m, err := explore.Merge(args)
			if err != nil {
				return badInput(err)
			}
			if out != "" {
				if err := m.Write(out); err != nil {
					return writeError(err)
				}
			}
			fmt.Fprint(cmd.OutOrStdout(), m.Markdown())
			if code := m.Exit(allowEmpty); code != exitValid {
				if why := m.Why(allowEmpty); why != nil {
					return &exitError{code: code, err: why}
				}
				return withCode(code)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the merged pages into this folder (suites: default store/suite-<name>/<timestamp>/)")
	cmd.Flags().StringVar(&store, "store", harness.DefaultStore, "store folder (suites, without --out)")
	registerAllowEmpty(cmd, &allowEmpty)
	return cmd
}

// writeError maps a failed write of outputs: a path kchaos will not
// write (owned.Error) or a store it cannot make is bad input
// (254, naming it); anything else internal.
func writeError(err error) error {
	var oe *owned.Error
	if errors.As(err, &oe) {
		return badInput(err)
	}
	return runError(err)
}

// mergeSuites joins suite shard folders and prints where the page is.
func mergeSuites(cmd *cobra.Command, dirs []string, out, store string, allowEmpty bool) error {
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
		return writeError(err)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintln(w, "suite:", filepath.Join(out, "suite.md"))
	if m.Whole > 0 {
		fmt.Fprintf(w, "%d cells from %d whole runs\n", len(m.File.Cells), m.Whole)
	} else {
		fmt.Fprintf(w, "%d cells from %d of %d shard(s)\n", len(m.File.Cells), m.Shards-len(m.Missing), m.Shards)
	}
	if len(m.Missing) > 0 {
		fmt.Fprintf(w, "missing shards: %v (cells %v)\n", m.Missing, m.MissingCells)
	}
	if code := m.Exit(allowEmpty); code != exitValid {
		if why := m.NothingJudged(); why != nil {
			return &exitError{code: code, err: why}
		}
		return withCode(code)
	}
	return nil
}
