package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/report"
)

func init() { subcommands = append(subcommands, newCheckCmd) }

func newCheckCmd() *cobra.Command {
	var (
		idempotent bool
		timeout    time.Duration
		skipLin    bool
	)
	cmd := &cobra.Command{
		Use:   "check PATH",
		Short: "Check a run folder or a history.jsonl; write results.json beside it",
		Long: `Check a history against the contract's anomalies (lost-write, offset-reuse,
duplicate, aborted-read, unexpected, nonmonotonic-send, poll-skip,
nonmonotonic-poll, unseen) and porcupine's linearizability model of each
partition log. PATH is a run folder (history.jsonl, maybe run.json) or a
history file. Writes results.json (NAME.results.json for a history not named
history.jsonl) and porcupine's HTML visualizations of the partitions that fail
beside the history; for a run folder, also report.md, report.html and
junit.xml from the new results.

Exit codes: 0 valid, 1 invalid, 2 unknown, 254 bad input, 255 internal error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout <= 0 {
				return badInput(fmt.Errorf("--porcupine-timeout %s: want a positive duration (use --skip-linearizability to leave porcupine out)", timeout))
			}
			// Every output is checked before the first is written: the
			// checker checks its results file; the report's files and the
			// porcupine pages are checked here (kchaos writes only its own
			// files, never through a link).
			if err := report.CheckOutputsOf(args[0]); err != nil {
				return badInput(err)
			}
			// One decode of the history: the report takes what it needs
			// from the checker's pass (report.Check, WriteScan).
			res, out, scan, err := report.Check(args[0], checker.Options{
				Idempotent: idempotent, PorcupineTimeout: timeout, SkipLinearizability: skipLin})
			switch {
			case errors.Is(err, checker.ErrInput):
				return badInput(err)
			case err != nil:
				return internal(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprint(w, res.Summary())
			fmt.Fprintln(w, "results:", out)
			if filepath.Base(out) == checker.ResultsFile {
				// A run folder: its report, report.html and junit.xml are
				// remade from the new results, so that one judge speaks.
				if err := report.WriteScan(filepath.Dir(out), scan); err != nil {
					return writeError(fmt.Errorf("report: %w", err))
				}
				fmt.Fprintln(w, "report:", filepath.Join(filepath.Dir(out), report.ReportMD))
			}
			if code := res.Valid.ExitCode(); code != exitValid {
				return withCode(code)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&idempotent, "idempotent", false, "the producer was idempotent (for a history without run.json; run.json decides otherwise)")
	f.DurationVar(&timeout, "porcupine-timeout", checker.DefaultPorcupineTimeout, "budget of the linearizability check (running out gives unknown)")
	f.BoolVar(&skipLin, "skip-linearizability", false, "leave porcupine out")
	return cmd
}
