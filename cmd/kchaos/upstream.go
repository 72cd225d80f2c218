package main

import (
	"errors"
	"fmt"

	"github.com/kchaos/kchaos/report"
	"github.com/spf13/cobra"
)

// newReportUpstreamCmd prints the text for Kafka's JIRA of a run or an
// explore finding (report.Upstream); it only parses flags and prints.
func newReportUpstreamCmd() *cobra.Command {
	var opts report.UpstreamOptions
	cmd := &cobra.Command{
		Use:   "report-upstream RUN_DIR|FINDING_DIR",
		Short: "Print a finding as a text for Kafka's JIRA: summary, releases, environment, steps with Kafka's tools, expected and actual, logs, repro",
		Long: `Write, from a run folder (of a findings cell or any run) or an explore
finding folder (findings/<run>-<class>/: its repro.yaml and repro-run/), the
text of a report for Kafka's JIRA: a summary, the affected releases (from
--bisect's bisect.json, or one in the folder, else the run's version), the
environment (release, topology, configs as the nodes read them), the steps
as Kafka's own tools do them (one line a step; a step without such a
translation is given as kchaos's), what was expected against what
happened (the checker's explanations: records, offsets, epochs), the
controller's and brokers' log lines kchaos saved, and the reproduction file.
Exit codes: 0 written, 254 a folder that is not a checked run (the file named).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := report.Upstream(args[0], opts)
			var fe *report.UpstreamFolderError
			if errors.As(err, &fe) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			fmt.Print(text)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Bisect, "bisect", "", "a bisect folder whose bisect.json gives the affected releases")
	cmd.Flags().IntVar(&opts.MaxLogLines, "log-lines", 12, "the most log lines to quote")
	return cmd
}

func init() { subcommands = append(subcommands, newReportUpstreamCmd) }
