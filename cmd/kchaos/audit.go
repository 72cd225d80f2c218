package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/shutdown"
	"github.com/kchaos/kchaos/report"
)

func init() { subcommands = append(subcommands, newAuditCmd) }

func newAuditCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "audit --broker-config FILE [--topic-config FILE] [--kafka V]",
		Short: "Run the failure stories under your cluster's settings and explain what they lose",
		Long: `Run the failure stories (s1: leader cut off then killed; s7: the ISR
shrinks to the leader, which loses power; s9: a rack outage; s10: a rack of
three dies) under your server.properties and topic configs, each on a fresh
cluster, and write one page (store/audit/<timestamp>/audit.md and
audit.html): per story the acked records lost, the offsets reused and the
seconds offline, and the configuration facts that explain them. The keys
kchaos must override to run at all are listed.
Exit codes: 0 nothing lost, 1 a story lost acked records or reused offsets,
2 a story could not be run or checked, 254 bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.brokerCfg == "" {
				return badInput(fmt.Errorf("--broker-config: required (your server.properties)"))
			}
			opts := harness.AuditOptions{Kafka: f.kafka, Sets: f.sets}
			var err error
			if opts.BrokerConfig, opts.TopicConfig, err = f.userConfigs(); err != nil {
				return err
			}
			if _, _, err := harness.PlanAudit(opts); err != nil {
				return badInput(err)
			}
			var (
				dir     string
				rows    []report.AuditRow
				err2    error
				stopped bool
			)
			serr := session(func(ctx context.Context, p *progress.Printer) error {
				opts.Options = f.options(p)
				opts.OnStory = func(done, total int, r report.AuditRow) {
					p.Finish()
					if r.NotRun != "" {
						fmt.Fprintf(os.Stderr, "audit: [%d/%d] %s: %s%s\n", done, total, r.Story, report.NotRun, r.NotRun)
						return
					}
					fmt.Fprintf(os.Stderr, "audit: [%d/%d] %s: %s: %d acked lost, %.1f s offline; %s %s\n", done, total, r.Story, r.Status(), r.Lost, r.OfflineSeconds, r.Account, r.Error)
				}
				dir, rows, err2 = harness.RunAudit(ctx, opts)
				p.Finish()
				_, stopped = shutdown.Cause(ctx)
				return nil
			})
			if serr != nil {
				return serr
			}
			printPage("audit", dir, "audit.md")
			if err2 != nil {
				return runError(err2)
			}
			code := harness.AuditExitCode(rows, stopped)
			if code != exitValid {
				return withCode(code)
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
